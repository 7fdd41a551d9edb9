package dev.needlewb.cli.scale;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The partition plan on random sweeps: every task once, one resource and whole groups per partition, order kept. */
class PartitionPlanTest {
    record Task(String resource, String group) implements SweepTask<Integer> {
        @Override
        public Integer run(TaskContext context) {
            throw new UnsupportedOperationException("only planned here");
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 8, 1000})
    void everyTaskOnceWholeGroupsOneResourceInOrder(int perResource) {
        Random random = new Random(perResource);
        for (int round = 0; round < 50; round++) {
            List<Task> tasks = new ArrayList<>();
            int n = 1 + random.nextInt(60);
            for (int i = 0; i < n; i++) tasks.add(new Task("engine" + random.nextInt(3), "tools" + random.nextInt(7)));
            List<List<Integer>> plan = PartitionPlan.of(tasks, perResource);

            List<Integer> seen = plan.stream().flatMap(List::stream).sorted().toList();
            assertThat(seen).as("every task exactly once").isEqualTo(java.util.stream.IntStream.range(0, n).boxed().toList());
            Set<String> placedGroups = new HashSet<>();
            for (List<Integer> partition : plan) {
                assertThat(partition).isNotEmpty();
                assertThat(partition.stream().map(i -> tasks.get(i).resource()).distinct()).as("one resource").hasSize(1);
                String last = null;
                for (int k = 0; k < partition.size(); k++) {
                    Task t = tasks.get(partition.get(k));
                    String key = t.resource() + "/" + t.group();
                    if (!key.equals(last)) assertThat(placedGroups.add(key)).as("group %s in one run of one partition", key).isTrue();
                    last = key;
                    if (k > 0 && tasks.get(partition.get(k - 1)).group().equals(t.group())) {
                        assertThat(partition.get(k)).as("file order within a group").isGreaterThan(partition.get(k - 1));
                    }
                }
            }
            for (String resource : tasks.stream().map(Task::resource).distinct().toList()) {
                long parts = plan.stream().filter(p -> tasks.get(p.getFirst()).resource().equals(resource)).count();
                long groups = tasks.stream().filter(t -> t.resource().equals(resource)).map(Task::group).distinct().count();
                assertThat(parts).as("partitions of %s", resource).isLessThanOrEqualTo(Math.min(perResource, groups));
            }
        }
    }
}

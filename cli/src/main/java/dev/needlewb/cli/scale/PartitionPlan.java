package dev.needlewb.cli.scale;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How a sweep's tasks are cut into partitions, the same for every runner: each partition holds the
 * tasks of one {@link SweepTask#resource() resource}, whole {@link SweepTask#group() groups} in
 * the order they first appear, and tasks in their given order within a group. A resource's groups
 * are dealt into at most {@code perResource} partitions of about equal task counts.
 */
public final class PartitionPlan {
    private PartitionPlan() {}

    /** Per partition, the indices of its tasks in {@code tasks}. */
    public static List<List<Integer>> of(List<? extends SweepTask<?>> tasks, int perResource) {
        if (perResource < 1) throw new IllegalArgumentException("perResource " + perResource);
        Map<String, Map<String, List<Integer>>> byResource = new LinkedHashMap<>();
        for (int i = 0; i < tasks.size(); i++) {
            SweepTask<?> t = tasks.get(i);
            byResource.computeIfAbsent(t.resource(), k -> new LinkedHashMap<>()).computeIfAbsent(t.group(), k -> new ArrayList<>()).add(i);
        }
        List<List<Integer>> partitions = new ArrayList<>();
        for (Map<String, List<Integer>> groups : byResource.values()) {
            int count = groups.values().stream().mapToInt(List::size).sum();
            int parts = Math.min(perResource, groups.size());
            // Whole groups in order; a partition closes once it holds its share of the resource's tasks.
            List<Integer> current = new ArrayList<>();
            int filled = 0, closed = 0;
            for (List<Integer> group : groups.values()) {
                current.addAll(group);
                filled += group.size();
                if (closed < parts - 1 && filled * (long) parts >= (long) count * (closed + 1)) {
                    partitions.add(current);
                    current = new ArrayList<>();
                    closed++;
                }
            }
            if (!current.isEmpty()) partitions.add(current);
        }
        return partitions;
    }
}

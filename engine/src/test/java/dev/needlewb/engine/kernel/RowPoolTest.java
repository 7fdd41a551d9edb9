package dev.needlewb.engine.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

class RowPoolTest {

    @Test
    void everyTicketOfEveryJobRunsExactlyOnceOnAThreadOfThePool() {
        try (RowPool pool = new RowPool(3)) {
            for (int job = 0; job < 200; job++) {
                int tickets = 1 + job % 37;
                AtomicIntegerArray runs = new AtomicIntegerArray(tickets);
                AtomicIntegerArray threadSeen = new AtomicIntegerArray(1);
                pool.run(tickets, (ticket, thread) -> {
                    runs.incrementAndGet(ticket);
                    if (thread < 0 || thread >= 3) threadSeen.set(0, 1);
                });
                for (int t = 0; t < tickets; t++) assertThat(runs.get(t)).as("job %d ticket %d", job, t).isEqualTo(1);
                assertThat(threadSeen.get(0)).isZero();
            }
        }
    }
}

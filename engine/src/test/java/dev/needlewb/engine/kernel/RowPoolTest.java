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

    @Test
    void ticketsAreWholeBlocksOfSixteenRowsThatEveryThreadCanShare() {
        for (int threads = 1; threads <= 8; threads++) {
            for (int rows = RowPool.SPLIT_ROWS; rows <= 9000; rows += 7) {
                int ticket = RowPool.ticketRows(rows, threads);
                assertThat(ticket % 16).as("%d rows, %d threads", rows, threads).isZero();
                assertThat(ticket).isBetween(64, 256);
                if (rows >= 64 * threads) assertThat(Math.ceilDiv(rows, ticket)).as("tickets of %d rows, %d threads", rows, threads).isGreaterThanOrEqualTo(threads);
            }
        }
        assertThat(RowPool.ticketRows(512, 2)).isEqualTo(256);
        assertThat(RowPool.ticketRows(512, 4)).isEqualTo(128);
        assertThat(RowPool.ticketRows(259, 2)).isEqualTo(128);
    }
}

package nl.overheid.moz.nmc.conformance;

import java.time.Instant;
import nl.overheid.moz.nmc.Nmc;
import nl.overheid.moz.nmc.simulator.NotifyNlSimulator;
import nl.overheid.moz.nmc.testing.ManualRunner;

/**
 * Drives an NMC whose workers run one round at a time against NotifyNL's simulator on the NMC's own clock (a zero
 * callback delay): the tests that move time themselves need the NMC at rest before they look.
 */
final class Rounds {

    private Rounds() {}

    /**
     * Runs the workers round after round, each time waiting for NotifyNL's e-mails to reach their outcome and
     * its receipts to be delivered, until a round finds nothing to do and nothing is on its way.
     */
    static void settle(Nmc nmc, NotifyNlSimulator notifyNl) {
        for (int round = 0; round < 100; round++) {
            // A receipt on its way when the round starts may be stored while the workers run, after the receipt
            // worker looked: that round proves nothing, so another one follows.
            // Likewise a receipt that a send of this very round caused and that arrived before the round ended.
            boolean busy = partiesBusy(notifyNl);
            int receiptsBefore = notifyNl.callbacksDelivered();
            int work = ManualRunner.of(nmc).runWorkersOnce();
            boolean waited = awaitParties(notifyNl) || notifyNl.callbacksDelivered() != receiptsBefore;
            if (work == 0 && !waited && !busy) {
                return;
            }
        }
        throw new AssertionError("the NMC did not come to rest");
    }

    /** Waits for NotifyNL's pending outcomes and receipts; true when there was anything to wait for. */
    static boolean awaitParties(NotifyNlSimulator notifyNl) {
        boolean waited = false;
        Instant deadline = Instant.now().plusSeconds(10);
        while (partiesBusy(notifyNl)) {
            waited = true;
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("NotifyNL's simulator did not finish its receipts");
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        return waited;
    }

    private static boolean partiesBusy(NotifyNlSimulator notifyNl) {
        return notifyNl.callbacksPending() > 0
                || notifyNl.sentNotifications().stream()
                        .anyMatch(sent -> sent.completedAt() == null
                                && !NotifyNlSimulator.PENDING_ADDRESS.equals(sent.emailAddress()));
    }
}

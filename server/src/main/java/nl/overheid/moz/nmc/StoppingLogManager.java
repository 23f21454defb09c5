package nl.overheid.moz.nmc;

import java.util.logging.LogManager;

/**
 * The JDK's log manager, except that its own shutdown hook does not close the log handlers: that hook runs at the
 * same time as the NMC's, so what the NMC logs while it stops (tasks released, calls finished or left to their
 * leases) would be lost. {@link Main} installs it and closes the handlers itself once the NMC has stopped. Written
 * here because JUL offers no switch for it.
 */
public final class StoppingLogManager extends LogManager {

    /** The JDK's shutdown hook (a private thread class of {@link LogManager}). */
    private static final String JDK_CLEANER = LogManager.class.getName() + "$Cleaner";

    @Override
    public void reset() {
        if (!Thread.currentThread().getClass().getName().equals(JDK_CLEANER)) {
            super.reset();
        }
    }

    /** Closes the handlers after the NMC stopped (what the JDK's hook would have done). */
    static void resetAfterStop() {
        if (LogManager.getLogManager() instanceof StoppingLogManager manager) {
            manager.closeHandlers();
        }
    }

    private void closeHandlers() {
        super.reset();
    }
}

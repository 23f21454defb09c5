package nl.overheid.moz.nmc.sending;

import nl.overheid.moz.nmc.engine.Duty;

/**
 * The duty that keeps the berichttypen's template placeholders current ({@link Templates}): every template never
 * fetched or fetched longer than {@code notifynl.template-refresh-interval} ago is asked of NotifyNL again, and the
 * rows of templates no berichttype names any more are removed. Idempotent, so every instance runs it; a round asks
 * only what is stale, so the instances together ask each template about once per interval.
 */
public final class TemplateRefresh implements Duty {

    private final Templates templates;

    public TemplateRefresh(Templates templates) {
        this.templates = templates;
    }

    @Override
    public String name() {
        return "NotifyNL template placeholders";
    }

    /** Refreshes what is stale; returns 0, like the gauges: a cache kept current is no work anything waits for. */
    @Override
    public int runOnce() {
        templates.refreshStale();
        return 0;
    }
}

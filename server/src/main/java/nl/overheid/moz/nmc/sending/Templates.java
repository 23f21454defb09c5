package nl.overheid.moz.nmc.sending;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.register.PlaceholderNames;

/**
 * What the NMC knows of the NotifyNL templates its berichttypen name: their placeholders, as NotifyNL's
 * {@code GET /v2/template/{id}} lists them ({@code personalisation}). Kept in the database ({@code sjabloon}), so
 * every instance, API-only ones included, checks alike; refreshed by a duty ({@link TemplateRefresh}) every
 * {@code notifynl.template-refresh-interval}, and at once after NotifyNL answered a send "Missing personalisation".
 * Acceptance reads it through a snapshot of at most {@code register.cache-ttl}, so a request never waits for
 * NotifyNL: a template whose placeholders are not known yet, or that NotifyNL does not know, is not checked.
 *
 * <p>Matching is NotifyNL's ({@code InsensitiveDict} of notifications-utils): a personalisation key fills a
 * placeholder when both agree after removing spaces, underscores and hyphens and ignoring case.
 */
public final class Templates {

    private static final Logger LOG = Logger.getLogger(Templates.class.getName());

    private final Database database;
    private final TemplateRepository repository;
    private final NotifyNlServices notifyNl;
    private final Clock clock;
    private final Duration cacheTtl;
    private final Duration refreshInterval;
    private volatile Snapshot snapshot;

    private record Snapshot(Map<TemplateRepository.Key, TemplateRepository.Stored> templates, Instant readAt) {}

    /**
     * @param cacheTtl        how long acceptance uses what it read ({@code register.cache-ttl})
     * @param refreshInterval how old the placeholders may get before the duty asks NotifyNL again
     */
    public Templates(
            Database database,
            TemplateRepository repository,
            NotifyNlServices notifyNl,
            Clock clock,
            Duration cacheTtl,
            Duration refreshInterval) {
        this.database = database;
        this.repository = repository;
        this.notifyNl = notifyNl;
        this.clock = clock;
        this.cacheTtl = cacheTtl;
        this.refreshInterval = refreshInterval;
    }

    /**
     * The placeholders of the service's template that {@code personalisation} does not fill, as the template spells
     * them, in the order NotifyNL listed them (its answers sort an object's keys); empty when it fills them all or
     * when the NMC does not know the template's placeholders. A placeholder filled with {@code null} counts as
     * missing, an empty text does not (as in NotifyNL).
     */
    public List<String> missing(String service, UUID templateId, Map<String, String> personalisation) {
        TemplateRepository.Stored stored = current().templates().get(new TemplateRepository.Key(service, templateId));
        if (stored == null || !stored.found() || stored.placeholders().isEmpty()) {
            return List.of();
        }
        Set<String> given = new HashSet<>();
        personalisation.forEach((key, value) -> {
            if (key != null && value != null) {
                given.add(PlaceholderNames.key(key));
            }
        });
        List<String> missing = new ArrayList<>();
        for (String placeholder : stored.placeholders()) {
            if (!given.contains(PlaceholderNames.key(placeholder)) && !missing.contains(placeholder)) {
                missing.add(placeholder);
            }
        }
        return List.copyOf(missing);
    }

    /** Asks NotifyNL for one template's placeholders now and stores the answer (an unreachable NotifyNL changes nothing). */
    public void refresh(String service, UUID templateId) {
        NotifyNl client;
        try {
            client = notifyNl.of(service);
        } catch (IllegalStateException notConfigured) {
            return; // the start refuses a berichttype of an unconfigured service; a later change waits for a restart
        }
        Instant now = clock.instant();
        switch (client.template(templateId)) {
            case NotifyNl.TemplateLookup.Found found ->
                store(service, templateId, true, found.placeholders(), found.version(), now);
            case NotifyNl.TemplateLookup.NotFound notFound -> {
                LOG.warning(() -> "NotifyNL service " + service + " has no template " + templateId
                        + ": its berichttypen's placeholders are not checked at acceptance, and their sends are parked"
                        + " (notifynl-template-onbekend)");
                store(service, templateId, false, List.of(), null, now);
            }
            case NotifyNl.TemplateLookup.Unavailable unavailable -> {
                // logged by the client; the known placeholders stay until NotifyNL answers
            }
        }
    }

    /** Refreshes every berichttype's template whose placeholders are unknown or older than the interval; returns how many. */
    public int refreshStale() {
        Instant now = clock.instant();
        List<TemplateRepository.Key> stale =
                database.autocommit(db -> repository.stale(db, now.minus(refreshInterval)));
        stale.forEach(key -> refresh(key.service(), key.templateId()));
        database.autocommit(repository::forgetUnused);
        return stale.size();
    }

    private void store(
            String service, UUID templateId, boolean found, List<String> fields, Integer version, Instant now) {
        database.autocommit(db -> {
            repository.store(db, service, templateId, found, fields, version, now);
            return null;
        });
        snapshot = null; // read again at the next acceptance
    }

    private Snapshot current() {
        Snapshot known = snapshot;
        if (known != null && clock.instant().isBefore(known.readAt().plus(cacheTtl))) {
            return known;
        }
        // one reader at a time: every acceptance asks, and an expired snapshot must not send them all to the database
        synchronized (snapshotRead) {
            known = snapshot;
            Instant now = clock.instant();
            return known != null && now.isBefore(known.readAt().plus(cacheTtl)) ? known : read(now);
        }
    }

    private final Object snapshotRead = new Object();

    private Snapshot read(Instant now) {
        Map<TemplateRepository.Key, TemplateRepository.Stored> read = new HashMap<>();
        database.autocommit(repository::all)
                .forEach(stored -> read.put(new TemplateRepository.Key(stored.service(), stored.templateId()), stored));
        Snapshot fresh = new Snapshot(Map.copyOf(read), now);
        snapshot = fresh;
        return fresh;
    }
}

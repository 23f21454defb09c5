package nl.overheid.moz.nmc.simulator;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * What NotifyNL keeps about one service and its API key beyond the configuration, changeable while the simulator
 * runs ({@link NotifyNlSimulator.ServiceSetup}): the key's type, trial mode and the team, the e-mail permission, a
 * revoked key, an archived service, the daily limit and its counter (per UTC day, as NotifyNL's Redis key), the
 * per-minute rate limit over a sliding 60 seconds, and the templates with their placeholders. Thread-safe: every
 * method is synchronized.
 */
final class ServiceState {

    /** NotifyNL's model default {@code Service.rate_limit}. */
    static final int DEFAULT_RATE_LIMIT = 3000;
    /** NotifyNL's model default {@code Service.email_message_limit}: in effect none. */
    static final int NO_DAILY_LIMIT = 999_999_999;

    private final NotifyNlSimulator.Service service;
    private NotifyNlSimulator.KeyType keyType;
    private boolean restricted;
    private final Set<String> team = new HashSet<>();
    private boolean emailAllowed;
    private boolean keyRevoked;
    private boolean archived;
    private int dailyLimit;
    private int rateLimit;
    private LocalDate countedDay;
    private int countedToday;
    private final Deque<Instant> recentRequests = new ArrayDeque<>();
    private final Map<UUID, NotifyNlSimulator.Template> templates = new HashMap<>();
    private final Set<UUID> archivedTemplates = new HashSet<>();

    ServiceState(NotifyNlSimulator.Service service) {
        this.service = service;
        reset();
    }

    synchronized void reset() {
        keyType = service.keyType();
        restricted = false;
        team.clear();
        emailAllowed = true;
        keyRevoked = false;
        archived = false;
        dailyLimit = NO_DAILY_LIMIT;
        rateLimit = DEFAULT_RATE_LIMIT;
        countedDay = null;
        countedToday = 0;
        recentRequests.clear();
        templates.clear();
        archivedTemplates.clear();
        service.templates().forEach(template -> templates.put(template.id(), template));
    }

    NotifyNlSimulator.Service service() {
        return service;
    }

    synchronized NotifyNlSimulator.KeyType keyType() {
        return keyType;
    }

    synchronized void keyType(NotifyNlSimulator.KeyType type) {
        this.keyType = type;
    }

    synchronized void trialMode(boolean on, Set<String> members) {
        restricted = on;
        team.clear();
        members.forEach(member -> team.add(normal(member)));
    }

    synchronized void emailAllowed(boolean allowed) {
        emailAllowed = allowed;
    }

    synchronized boolean emailAllowed() {
        return emailAllowed;
    }

    synchronized void keyRevoked(boolean revoked) {
        keyRevoked = revoked;
    }

    synchronized boolean keyRevoked() {
        return keyRevoked;
    }

    synchronized void archived(boolean on) {
        archived = on;
    }

    synchronized boolean archived() {
        return archived;
    }

    synchronized void dailyLimit(int limit) {
        dailyLimit = limit;
    }

    synchronized int dailyLimit() {
        return dailyLimit;
    }

    synchronized void rateLimit(int limit) {
        rateLimit = limit;
    }

    /**
     * NotifyNL's {@code check_service_over_api_rate_limit}: every request counts, refused ones too, over a sliding
     * 60 seconds; the limit for the request this one is.
     */
    synchronized Optional<Integer> overRateLimit(Instant now) {
        while (!recentRequests.isEmpty() && !recentRequests.peekFirst().isAfter(now.minus(Duration.ofSeconds(60)))) {
            recentRequests.removeFirst();
        }
        recentRequests.addLast(now);
        return recentRequests.size() > rateLimit ? Optional.of(rateLimit) : Optional.empty();
    }

    /** NotifyNL's {@code check_service_over_daily_message_limit}: not for test keys; count + 1 over the limit. */
    synchronized boolean overDailyLimit(Instant now) {
        if (keyType == NotifyNlSimulator.KeyType.TEST) {
            return false;
        }
        roll(now);
        return countedToday + 1 > dailyLimit;
    }

    /** A persisted notification counts towards today's limit (not for test keys). */
    synchronized void countSend(Instant now) {
        if (keyType != NotifyNlSimulator.KeyType.TEST) {
            roll(now);
            countedToday++;
        }
    }

    /** Sends counted today (UTC), for tests. */
    synchronized int sentToday(Instant now) {
        roll(now);
        return countedToday;
    }

    private void roll(Instant now) {
        LocalDate today = now.atZone(ZoneOffset.UTC).toLocalDate();
        if (!today.equals(countedDay)) {
            countedDay = today;
            countedToday = 0;
        }
    }

    /**
     * NotifyNL's {@code service_allowed_to_send_to}: a test key sends to anyone, a live key of a service out of
     * trial mode too; a team key, and a live key in trial mode, only to the team.
     */
    synchronized boolean mayReceive(String emailAddress) {
        if (keyType == NotifyNlSimulator.KeyType.TEST || keyType == NotifyNlSimulator.KeyType.NORMAL && !restricted) {
            return true;
        }
        return team.contains(normal(emailAddress));
    }

    synchronized void template(NotifyNlSimulator.Template template) {
        templates.put(template.id(), template);
        archivedTemplates.remove(template.id());
    }

    synchronized void archiveTemplate(UUID id) {
        archivedTemplates.add(id);
    }

    synchronized boolean templateArchived(UUID id) {
        return archivedTemplates.contains(id);
    }

    synchronized Optional<NotifyNlSimulator.Template> template(UUID id) {
        return Optional.ofNullable(templates.get(id));
    }

    synchronized Set<UUID> templateIds() {
        return Set.copyOf(templates.keySet());
    }

    private static String normal(String address) {
        return EmailAddresses.normalise(address).toLowerCase(Locale.ROOT);
    }
}

package nl.overheid.moz.nmc.api;

import nl.overheid.moz.nmc.feed.FeedCalls;
import nl.overheid.moz.nmc.register.Dienstverlener;

/** The per-DV rate limit of the feed calls, as a 429 problem with {@code Retry-After}. */
final class FeedLimits {

    private FeedLimits() {}

    static void check(FeedCalls calls, Dienstverlener dv) {
        calls.take(dv.id()).ifPresent(retryAfter -> {
            throw ProblemException.rateLimited(retryAfter);
        });
    }
}

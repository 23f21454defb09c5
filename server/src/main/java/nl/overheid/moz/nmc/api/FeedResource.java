package nl.overheid.moz.nmc.api;

import io.cloudevents.CloudEvent;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.List;
import java.util.Optional;
import nl.overheid.moz.nmc.api.generated.dv.ValidatorUtils;
import nl.overheid.moz.nmc.api.generated.dv.WijzigingenService;
import nl.overheid.moz.nmc.api.generated.dv.model.Bevestiging;
import nl.overheid.moz.nmc.feed.Feed;

/**
 * The change feed and its acknowledgement. The events are the CloudEvents the feed built with the SDK,
 * written by the SDK's own Jackson serialisation ({@code Wijzigingen} of the contract). Rate-limited per DV
 * ({@code feed.rate-limit-per-second}) by {@link RequestLimits}.
 */
public final class FeedResource extends WijzigingenService {

    private final Feed feed;
    private final JsonBodies bodies;
    private final Responses responses;
    /** The contract's largest {@code limit}; a larger one is a 400, one up to it is capped at {@code maxLimit}. */
    static final int CONTRACT_MAX_LIMIT = 1000;

    private final int defaultLimit;
    private final int maxLimit;

    public FeedResource(Feed feed, JsonBodies bodies, Responses responses, int defaultLimit, int maxLimit) {
        this.feed = feed;
        this.bodies = bodies;
        this.responses = responses;
        this.maxLimit = Math.min(maxLimit, CONTRACT_MAX_LIMIT);
        this.defaultLimit = Math.min(defaultLimit, this.maxLimit);
    }

    /** The contract's {@code Wijzigingen}: the page's events and the cursor to continue from. */
    record Page(List<CloudEvent> events, String cursor) {}

    @Override
    protected WijzigingenBevestigenOp createWijzigingenBevestigenOp() {
        return new WijzigingenBevestigenOp() {
            @Override
            protected Bevestiging bevestiging(ServerRequest request, ValidatorUtils.Validator validator) {
                return bodies.read(request, "Bevestiging", Bevestiging.class);
            }
        };
    }

    @Override
    protected void handleWijzigingenLezen(
            ServerRequest request, ServerResponse response, Optional<String> cursor, Optional<Integer> limit) {
        ParameterParsing.noneWithoutValue(request, "cursor", "limit");
        // The generated service fills in the contract's default (100) when the DV gives none: feed.default-limit
        // applies only if the query has no limit at all.
        int pageSize = request.query().contains("limit") ? limit.orElse(defaultLimit) : defaultLimit;
        if (pageSize < 1 || pageSize > CONTRACT_MAX_LIMIT) {
            throw ProblemException.invalid(
                    "limit", "range", "limit moet tussen 1 en " + CONTRACT_MAX_LIMIT + " liggen.");
        }
        // "the server may cap it lower" (the contract)
        Feed.Page page = feed.read(Callers.of(request), cursor.orElse(null), Math.min(pageSize, maxLimit));
        responses.json(response, Status.OK_200, new Page(page.events(), page.cursor()));
    }

    @Override
    protected void handleWijzigingenBevestigen(
            ServerRequest request, ServerResponse response, Bevestiging bevestiging) {
        feed.acknowledge(Callers.of(request), bevestiging.getCursor());
        responses.json(response, Status.OK_200, bevestiging);
    }

    @Override
    public void afterStop() {
        // the generated default prints to stdout; the server logs its own shutdown
    }
}

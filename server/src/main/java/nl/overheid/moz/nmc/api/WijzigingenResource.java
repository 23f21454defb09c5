package nl.overheid.moz.nmc.api;

import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.net.URI;
import java.util.Optional;
import nl.overheid.moz.nmc.api.generated.dv.ValidatorUtils;
import nl.overheid.moz.nmc.api.generated.dv.WijzigingenService;
import nl.overheid.moz.nmc.api.generated.dv.model.Bevestiging;
import nl.overheid.moz.nmc.api.generated.dv.model.CloudEvent;
import nl.overheid.moz.nmc.api.generated.dv.model.StatusWijziging;
import nl.overheid.moz.nmc.api.generated.dv.model.Wijzigingen;
import nl.overheid.moz.nmc.feed.EventRepository;
import nl.overheid.moz.nmc.feed.Feed;

/**
 * The change feed and its acknowledgement: CloudEvents 1.0 in structured JSON following the NL GOV profile
 * ({@code sequence} is the volgnummer as a string, {@code subject} the notification id, never the dvRef).
 */
public final class WijzigingenResource extends WijzigingenService {

    public static final String EVENT_TYPE_PREFIX = "nl.overheid.moz.notificatie.status.";

    private final Feed feed;
    private final JsonBodies bodies;
    private final Responses responses;
    private final URI source;
    private final int maxLimit;

    public WijzigingenResource(Feed feed, JsonBodies bodies, Responses responses, URI source, int maxLimit) {
        this.feed = feed;
        this.bodies = bodies;
        this.responses = responses;
        this.source = source;
        this.maxLimit = maxLimit;
    }

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
    protected void handleWijzigingenLezen(ServerRequest request, ServerResponse response, Optional<String> cursor,
                                          Optional<Integer> limit) {
        int pageSize = limit.orElse(Math.min(100, maxLimit));
        if (pageSize < 1 || pageSize > maxLimit) {
            throw ProblemException.invalid("limit", "range", "limit moet tussen 1 en " + maxLimit + " liggen.");
        }
        Feed.Page page = feed.read(Callers.of(request), cursor.orElse(null), pageSize);
        Wijzigingen body = new Wijzigingen();
        body.setEvents(page.events().stream().map(this::cloudEvent).toList());
        body.setCursor(page.next().encode());
        responses.json(response, Status.OK_200, body);
    }

    @Override
    protected void handleWijzigingenBevestigen(ServerRequest request, ServerResponse response, Bevestiging bevestiging) {
        feed.acknowledge(Callers.of(request), bevestiging.getCursor());
        responses.json(response, Status.OK_200, bevestiging);
    }

    private CloudEvent cloudEvent(EventRepository.Event event) {
        CloudEvent cloudEvent = new CloudEvent();
        cloudEvent.setSpecversion(CloudEvent.SpecversionEnum.fromValue("1.0"));
        cloudEvent.setId(Long.toString(event.id()));
        cloudEvent.setSource(source.toString());
        cloudEvent.setType(EVENT_TYPE_PREFIX + event.naar().dbValue());
        cloudEvent.setSubject(event.notificatie());
        cloudEvent.setTime(NotificatiesResource.time(event.tijdstip()));
        cloudEvent.setDatacontenttype(CloudEvent.DatacontenttypeEnum.fromValue("application/json"));
        cloudEvent.setSequence(Integer.toString(event.volgnummer()));
        cloudEvent.setSequencetype(CloudEvent.SequencetypeEnum.fromValue("Integer"));
        StatusWijziging data = new StatusWijziging();
        if (event.van() != null) {
            data.setVan(nl.overheid.moz.nmc.api.generated.dv.model.NotificatieStatus.fromValue(event.van().dbValue()));
        }
        data.setNaar(nl.overheid.moz.nmc.api.generated.dv.model.NotificatieStatus.fromValue(event.naar().dbValue()));
        if (event.reden() != null) {
            data.setReden(nl.overheid.moz.nmc.api.generated.dv.model.Reden.fromValue(event.reden().dbValue()));
        }
        data.setVersie(event.volgnummer());
        cloudEvent.setData(data);
        return cloudEvent;
    }

    @Override
    public void afterStop() {
        // the generated default prints to stdout; the server logs its own shutdown
    }
}

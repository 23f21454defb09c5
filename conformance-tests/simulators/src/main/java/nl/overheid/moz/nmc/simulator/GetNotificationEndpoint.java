package nl.overheid.moz.nmc.simulator;

import com.github.tomakehurst.wiremock.http.Request;
import com.github.tomakehurst.wiremock.http.ResponseDefinition;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * {@code GET /v2/notifications/{notification_id}} ({@code get_notification_by_id}): 200 with the
 * {@linkplain NotifyJson#notification notification} in the status it has reached ({@code sending} or
 * {@code created} until the outcome, then the final status with {@code completed_at}); 404
 * {@code NoResultFound} {@code No result found} for an unknown id and for a notification of another service (as
 * Notify, which looks it up within the caller's service); 400 {@code ValidationError}
 * {@code notification_id is not a valid UUID} for a malformed one.
 */
final class GetNotificationEndpoint extends NotifyEndpoint {

    private static final String PREFIX = "/v2/notifications/";

    GetNotificationEndpoint(Simulation simulation) {
        super(simulation, NotifyNlSimulator.GET_NOTIFICATION_TRANSFORMER, "GET /v2/notifications/{id}");
    }

    @Override
    ResponseDefinition handle(ServeEvent serveEvent, Request request, Instant now, NotifyNlSimulator.Service service) {
        String path = path(request);
        Optional<UUID> id =
                path.startsWith(PREFIX) ? NotifyFormats.parseUuid(path.substring(PREFIX.length())) : Optional.empty();
        if (id.isEmpty()) {
            return error(serveEvent, NotifyError.of(400, "ValidationError", "notification_id is not a valid UUID"));
        }
        Optional<StoredNotification> found = simulation
                .store()
                .find(id.get())
                .filter(notification -> notification.serviceId().toString().equals(service.serviceId()));
        if (found.isEmpty()) {
            return json(
                    serveEvent,
                    404,
                    NotifyError.of(404, "NoResultFound", "No result found").toJson(),
                    "NoResultFound id=" + id.get());
        }
        StoredNotification notification = found.get();
        return json(
                serveEvent,
                200,
                JsonText.writeFlask(NotifyJson.notification(notification, urlRoot(request), now)),
                "id=" + notification.id() + " reference=" + notification.reference() + " status="
                        + notification.statusAt(now));
    }
}

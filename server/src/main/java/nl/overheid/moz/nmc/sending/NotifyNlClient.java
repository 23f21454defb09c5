package nl.overheid.moz.nmc.sending;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import uk.gov.service.notify.Notification;
import uk.gov.service.notify.NotificationClient;
import uk.gov.service.notify.NotificationClientException;
import uk.gov.service.notify.NotificationList;
import uk.gov.service.notify.SendEmailResponse;

/**
 * {@link NotifyNl} on GOV.UK Notify's official Java client, which speaks NotifyNL's JWT scheme (HS256,
 * {@code iss} = service id, {@code iat}) itself. It runs on {@code HttpURLConnection}, whose behaviour is
 * set JVM-wide below.
 */
public final class NotifyNlClient implements NotifyNl {

    static {
        // The client sets no time-outs of its own: bound every call (a pod's grace period must exceed them).
        System.setProperty("sun.net.client.defaultConnectTimeout", "5000");
        System.setProperty("sun.net.client.defaultReadTimeout", "15000");
        // HttpURLConnection silently re-sends a POST once when the connection breaks before the answer: that
        // is a second e-mail. The send pipeline's search by reference handles a lost answer instead.
        System.setProperty("sun.net.http.retryPost", "false");
    }

    private final NotificationClient client;

    public NotifyNlClient(String apiKey, String baseUrl) {
        this.client = new NotificationClient(apiKey, baseUrl);
    }

    @Override
    public SendResult sendEmail(UUID templateId, String emailAddress, Map<String, String> personalisation,
                                UUID reference) {
        try {
            SendEmailResponse response = client.sendEmail(templateId.toString(), emailAddress, personalisation,
                    reference.toString());
            return new SendResult.Accepted(response.getNotificationId());
        } catch (NotificationClientException e) {
            // Only the status code is kept: Notify's error text may quote the address.
            int status = e.getHttpResult();
            return status == 400 ? new SendResult.Rejected("http-400")
                    : new SendResult.Unavailable(reason(status), status <= 0 || status >= 500);
        }
    }

    @Override
    public Lookup findByReference(UUID reference) {
        try {
            NotificationList list = client.getNotifications(null, "email", reference.toString(), null);
            return list.getNotifications().stream()
                    .filter(n -> n.getReference().map(reference.toString()::equals).orElse(false))
                    .findFirst()
                    .<Lookup>map(NotifyNlClient::found)
                    .orElseGet(Lookup.NotFound::new);
        } catch (NotificationClientException e) {
            return e.getHttpResult() == 404 ? new Lookup.NotFound() : new Lookup.Unavailable(reason(e.getHttpResult()));
        }
    }

    private static Lookup found(Notification notification) {
        Optional<Instant> completedAt = notification.getCompletedAt().map(time -> time.toInstant());
        return new Lookup.Found(notification.getId(), notification.getStatus(), completedAt);
    }

    private static String reason(int status) {
        return status <= 0 ? "connection" : "http-" + status;
    }
}

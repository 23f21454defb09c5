package nl.overheid.moz.nmc.simulator;

import java.time.Instant;
import java.util.Map;

/**
 * The JSON documents Notify writes for an e-mail notification, field for field; its API's answers as Flask writes
 * them (keys sorted, non-ASCII escaped), its callbacks as {@code json.dumps} does. The official Java client
 * ({@code uk.gov.service.notify:notifications-java-client} 6.0.0-RELEASE) parses the first two with
 * {@code SendEmailResponse} and {@code Notification}.
 */
final class NotifyJson {

    /** The {@code from_email} of the simulated service ({@code <email_sender_local_part>@<Notify's domain>}). */
    static final String FROM_EMAIL = "nmc@simulator.notify";

    private NotifyJson() {}

    /**
     * The 201 body of {@code POST /v2/notifications/email}
     * ({@code app/v2/notifications/create_response.py}): {@code id}, {@code reference},
     * {@code content {from_email, body, subject, one_click_unsubscribe_url}}, {@code uri},
     * {@code template {id, version, uri}} with Notify's admin-style template URI, {@code scheduled_for} null.
     */
    static String sendEmailResponse(StoredNotification notification, String urlRoot, String serviceId) {
        return JsonText.writeFlask(JsonText.object(
                "id", notification.id(),
                "reference", notification.reference(),
                "content",
                        JsonText.object(
                                "from_email", FROM_EMAIL,
                                "body", notification.body(),
                                "subject", notification.subject(),
                                "one_click_unsubscribe_url", notification.oneClickUnsubscribeUrl()),
                "uri", urlRoot + "/v2/notifications/" + notification.id(),
                "template",
                        JsonText.object(
                                "id",
                                notification.templateId(),
                                "version",
                                StoredNotification.TEMPLATE_VERSION,
                                "uri",
                                urlRoot + "/services/" + serviceId + "/templates/" + notification.templateId()),
                "scheduled_for", null));
    }

    /**
     * One notification as {@code GET /v2/notifications/{id}} and the list endpoint answer it
     * ({@code Notification.serialize()} in {@code app/models.py}), with the status reached at {@code now}.
     */
    static Map<String, Object> notification(StoredNotification notification, String urlRoot, Instant now) {
        return JsonText.object(
                "id",
                notification.id(),
                "reference",
                notification.reference(),
                "email_address",
                notification.emailAddress(),
                "phone_number",
                null,
                "line_1",
                null,
                "line_2",
                null,
                "line_3",
                null,
                "line_4",
                null,
                "line_5",
                null,
                "line_6",
                null,
                "postcode",
                null,
                "type",
                "email",
                "status",
                notification.statusAt(now),
                "template",
                JsonText.object(
                        "id",
                        notification.templateId(),
                        "version",
                        StoredNotification.TEMPLATE_VERSION,
                        "uri",
                        urlRoot + "/v2/template/" + notification.templateId() + "/version/"
                                + StoredNotification.TEMPLATE_VERSION),
                "body",
                notification.body(),
                "subject",
                notification.subject(),
                "created_at",
                notification.createdAt(),
                "created_by_name",
                null,
                "sent_at",
                notification.sentAt(),
                "completed_at",
                notification.completedAtOrNull(now),
                "scheduled_for",
                null,
                "postage",
                null,
                "one_click_unsubscribe_url",
                notification.oneClickUnsubscribeUrl(),
                "is_cost_data_ready",
                true,
                "cost_in_pounds",
                0.0,
                "cost_details",
                JsonText.object());
    }

    /**
     * The delivery receipt Notify POSTs to the service's callback URL
     * ({@code send_delivery_status_to_service} in {@code app/celery/service_callback_tasks.py}).
     * {@code completed_at} is the notification's {@code updated_at}; all timestamps in Notify's format. Written as
     * Python's {@code json.dumps} writes it (keys in this order, {@code ", "} and {@code ": "}, ASCII only).
     */
    static String deliveryReceipt(StoredNotification notification) {
        return JsonText.writeDumps(JsonText.object(
                "id", notification.id(),
                "reference", notification.reference(),
                "to", notification.emailAddress(),
                "status", notification.finalStatus(),
                "created_at", notification.createdAt(),
                "completed_at", notification.completedAt(),
                "sent_at", notification.sentAt(),
                "notification_type", "email",
                "template_id", notification.templateId(),
                "template_version", StoredNotification.TEMPLATE_VERSION));
    }

    /**
     * The complaint callback ({@code send_complaint_to_service} in {@code app/celery/service_callback_tasks.py}):
     * {@code notification_id, complaint_id, reference, to, complaint_date}.
     */
    static String complaint(StoredNotification notification, java.util.UUID complaintId, Instant complainedAt) {
        return JsonText.writeDumps(JsonText.object(
                "notification_id", notification.id(),
                "complaint_id", complaintId,
                "reference", notification.reference(),
                "to", notification.emailAddress(),
                "complaint_date", complainedAt));
    }

    /**
     * A template as {@code GET /v2/template/{id}} answers it ({@code TemplateBase.serialize_for_v2} in
     * {@code app/models.py}): the raw subject and body, and {@code personalisation} with every placeholder
     * {@code {"required": true}}.
     */
    static String template(NotifyNlSimulator.Template template, Instant createdAt) {
        Map<String, Object> personalisation = new java.util.LinkedHashMap<>();
        template.placeholders().forEach(name -> personalisation.put(name, JsonText.object("required", true)));
        return JsonText.writeFlask(JsonText.object(
                "id",
                template.id(),
                "type",
                template.type(),
                "created_at",
                createdAt,
                "updated_at",
                null,
                "created_by",
                "beheer@simulator.notify",
                "version",
                StoredNotification.TEMPLATE_VERSION,
                "body",
                template.body(),
                "subject",
                template.type().equals("email") || template.type().equals("letter") ? template.subject() : null,
                "name",
                template.name(),
                "personalisation",
                personalisation,
                "postage",
                null,
                "letter_contact_block",
                null));
    }
}

package nl.overheid.moz.nmc.sending;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The classification of NotifyNL's answers (ARCHITECTURE §7.4, "NotifyNL's answers"), row by row, with NotifyNL's exact bodies
 * (keys sorted, non-ASCII escaped, as Flask writes them; messages from {@code app/v2/errors.py},
 * {@code app/notifications/validators.py}, {@code app/authentication/auth.py} of {@code Worth-NL/notifynl-api}).
 */
class NotifyNlAnswersTest {

    private static String body(int status, String error, String message) {
        return "{\"errors\":[{\"error\":\"" + error + "\",\"message\":\"" + message + "\"}],\"status_code\":" + status
                + "}";
    }

    private static NotifyNl.SendResult send(int status, String error, String message) {
        return NotifyNlAnswers.send(status, body(status, error, message));
    }

    @Test
    void a201WithItsIdIsAccepted() {
        UUID id = UUID.randomUUID();
        assertThat(NotifyNlAnswers.send(201, "{\"content\":{},\"id\":\"" + id + "\",\"reference\":null}"))
                .isEqualTo(new NotifyNl.SendResult.Accepted(id));
        assertThat(NotifyNlAnswers.send(201, "{\"id\":42}"))
                .as("a 201 without a readable id is looked up by reference")
                .isEqualTo(new NotifyNl.SendResult.Unavailable("contract", true));
    }

    /**
     * NotifyNL answers a send 201; another 2xx (something in front of it) may still mean it has the e-mail, so the
     * attempt is looked up by reference before it is POSTed again, never sent a second time blind.
     */
    @Test
    void anotherSuccessThan201MayHaveArrived() {
        for (int status : new int[] {200, 202, 204}) {
            assertThat(NotifyNlAnswers.send(status, "{\"id\":\"" + UUID.randomUUID() + "\"}"))
                    .isEqualTo(new NotifyNl.SendResult.Unavailable("http-" + status, true));
        }
    }

    @Test
    void onlyTheAddressCheckIsTheRecipientsFault() {
        assertThat(send(400, "ValidationError", "email_address Not a valid email address"))
                .isEqualTo(new NotifyNl.SendResult.Rejected("email_address"));
        assertThat(send(400, "InvalidEmailError", "Not a valid email address"))
                .isEqualTo(new NotifyNl.SendResult.Rejected("email_address"));
        // NotifyNL lists every schema error; the address's may come second
        assertThat(NotifyNlAnswers.send(
                        400,
                        "{\"errors\":[{\"error\":\"ValidationError\",\"message\":\"reference 12 is not of type string\"},"
                                + "{\"error\":\"ValidationError\",\"message\":\"email_address Not a valid email address\"}],"
                                + "\"status_code\":400}"))
                .isEqualTo(new NotifyNl.SendResult.Rejected("email_address"));
    }

    @ParameterizedTest(name = "{0} {1} \"{2}\" -> {3}")
    @CsvSource(
            delimiter = '|',
            value = {
                "400|BadRequestError|Template not found|TEMPLATE_NOT_FOUND",
                "400|BadRequestError|Template has been deleted|TEMPLATE_DELETED",
                "400|BadRequestError|sms template is not suitable for email notification|TEMPLATE_NOT_EMAIL",
                "400|BadRequestError|letter template is not suitable for email notification|TEMPLATE_NOT_EMAIL",
                "400|BadRequestError|Missing personalisation: naam|PERSONALISATION_MISSING",
                "400|BadRequestError|Missing personalisation: naam, datum|PERSONALISATION_MISSING",
                "400|BadRequestError|Your message is empty.|CONTENT_INVALID",
                "400|BadRequestError|Your message is too long. Emails cannot be longer than 2000000 bytes. Your message"
                        + " is 2000001 bytes.|CONTENT_INVALID",
                "400|BadRequestError|Can\\u2019t send to this recipient when service is in trial mode \\u2013 see"
                        + " https://www.notifications.service.gov.uk/trial-mode|TRIAL_MODE",
                "400|BadRequestError|Can't send to this recipient when service is in trial mode|TRIAL_MODE",
                "400|BadRequestError|Cannot send to this recipient when service is in trial mode - see"
                        + " https://admin.notifynl.nl/trial-mode|TRIAL_MODE",
                "400|BadRequestError|Can\\u2019t send to this recipient using a team-only API key|TEAM_KEY",
                "400|BadRequestError|Service is not allowed to send emails|NO_EMAIL_PERMISSION",
                "400|BadRequestError|Invalid JSON supplied in POST data|REQUEST_INVALID",
                "400|BadRequestError|email_reply_to_id 1 does not exist in database for service id 2|REQUEST_INVALID",
                "400|ValidationError|template_id is not a valid UUID|REQUEST_INVALID",
                "400|ValidationError|Additional properties are not allowed (foo was unexpected)|REQUEST_INVALID",
                "400|ValidationError|one_click_unsubscribe_url is not a valid https url|REQUEST_INVALID",
                "400|ValidationError|email_address None is not of type string|REQUEST_INVALID",
                "400|BadRequestError|An error occurred|UNKNOWN_REFUSAL",
                "400|SomethingNew|Whatever|UNKNOWN_REFUSAL",
                "401|AuthError|Unauthorized: authentication token must be provided|KEY_INVALID",
                "401|AuthError|Unauthorized: authentication bearer scheme must be used|KEY_INVALID",
                "403|AuthError|Invalid token: API key revoked|KEY_REVOKED",
                "403|AuthError|Invalid token: service is archived|SERVICE_ARCHIVED",
                "403|AuthError|Invalid token: API key not found|KEY_INVALID",
                "403|AuthError|Invalid token: service not found|KEY_INVALID",
                "403|AuthError|Invalid token: service has no API keys|KEY_INVALID",
                "403|AuthError|Invalid token: algorithm used is not HS256|KEY_INVALID"
            })
    void everyRefusalOfTheSetupHasItsClass(int status, String error, String message, SetupError expected) {
        assertThat(send(status, error, message)).isEqualTo(new NotifyNl.SendResult.SetupFailure(expected));
    }

    @Test
    void aBodyThatIsNotNotifyNlsIsNeverTheRecipientsFault() {
        assertThat(NotifyNlAnswers.send(400, "<html>Bad Request</html>"))
                .isEqualTo(new NotifyNl.SendResult.SetupFailure(SetupError.UNKNOWN_REFUSAL));
        assertThat(NotifyNlAnswers.send(400, ""))
                .isEqualTo(new NotifyNl.SendResult.SetupFailure(SetupError.UNKNOWN_REFUSAL));
    }

    @Test
    void theDailyLimitAndTheRateLimitAreTwoThings() {
        assertThat(send(429, "TooManyRequestsError", "Exceeded send limits (email: 50) for today"))
                .isEqualTo(new NotifyNl.SendResult.DailyLimit());
        assertThat(send(429, "RateLimitError", "Exceeded rate limit for key type LIVE of 3000 requests per 60 seconds"))
                .isEqualTo(new NotifyNl.SendResult.Unavailable("http-429", false));
        // the proof of concept's vendored contract shows this mix as its example: the message decides
        assertThat(send(
                        429,
                        "TooManyRequestsError",
                        "Exceeded rate limit for key type TEAM/TEST/LIVE of 3000 requests per 60 seconds"))
                .isEqualTo(new NotifyNl.SendResult.Unavailable("http-429", false));
        assertThat(NotifyNlAnswers.send(429, "Too Many Requests"))
                .as("a 429 of something in front of NotifyNL")
                .isEqualTo(new NotifyNl.SendResult.Unavailable("http-429", false));
    }

    @Test
    void theClockAndOtherFailuresOfTheCallAreTheNormalBackoff() {
        assertThat(send(403, "AuthError", "Error: Your system clock must be accurate to within 30 seconds"))
                .isEqualTo(new NotifyNl.SendResult.Unavailable("notifynl-klok", false));
        assertThat(NotifyNlAnswers.send(403, "<html>WAF</html>"))
                .isEqualTo(new NotifyNl.SendResult.Unavailable("http-403", false));
        assertThat(send(500, "OperationalError", "Internal server error"))
                .isEqualTo(new NotifyNl.SendResult.Unavailable("http-500", true));
        assertThat(send(504, "EventletTimeout", "Timeout serving request"))
                .isEqualTo(new NotifyNl.SendResult.Unavailable("http-504", true));
        assertThat(NotifyNlAnswers.send(
                        404,
                        "{\"message\":\"The requested URL was not found on the server. If you entered the URL manually "
                                + "please check your spelling and try again.\",\"result\":\"error\"}"))
                .isEqualTo(new NotifyNl.SendResult.Unavailable("http-404", false));
    }

    @Test
    void onlyNotifyNlsOwn404SaysItDoesNotKnowANotification() {
        assertThat(NotifyNlAnswers.lookupFailure(404, body(404, "NoResultFound", "No result found")))
                .isEqualTo(new NotifyNl.Lookup.NotFound());
        assertThat(NotifyNlAnswers.lookupFailure(
                        404, "{\"message\":\"The requested URL was not found on the server.\",\"result\":\"error\"}"))
                .isEqualTo(new NotifyNl.Lookup.Unavailable("http-404"));
        assertThat(NotifyNlAnswers.lookupFailure(403, body(403, "AuthError", "Invalid token: API key revoked")))
                .isEqualTo(new NotifyNl.Lookup.Unavailable("notifynl-sleutel-ingetrokken"));
        assertThat(NotifyNlAnswers.lookupFailure(400, body(400, "ValidationError", "older_than is not a valid UUID")))
                .isEqualTo(new NotifyNl.Lookup.Unavailable("http-400"));
    }

    @Test
    void aTemplatesPlaceholdersAreTheKeysOfItsPersonalisation() {
        String template = "{\"body\":\"Beste ((naam)), uw ((zaak??zaak)) van ((datum))\",\"created_at\":"
                + "\"2026-01-01T10:00:00.000000Z\",\"created_by\":\"a@b.nl\",\"id\":\"" + UUID.randomUUID()
                + "\",\"letter_contact_block\":null,\"name\":\"T\",\"personalisation\":{\"naam\":{\"required\":true},"
                + "\"zaak\":{\"required\":true},\"datum\":{\"required\":true}},\"postage\":null,\"subject\":\"S\","
                + "\"type\":\"email\",\"updated_at\":null,\"version\":3}";
        assertThat(NotifyNlAnswers.template(template))
                .isEqualTo(new NotifyNl.TemplateLookup.Found(List.of("naam", "zaak", "datum"), 3));
        assertThat(NotifyNlAnswers.template("{\"id\":\"x\"}"))
                .isEqualTo(new NotifyNl.TemplateLookup.Unavailable("contract"));
        assertThat(NotifyNlAnswers.templateFailure(404, body(404, "NoResultFound", "No result found")))
                .isEqualTo(new NotifyNl.TemplateLookup.NotFound());
        assertThat(NotifyNlAnswers.templateFailure(500, body(500, "Exception", "Internal server error")))
                .isEqualTo(new NotifyNl.TemplateLookup.Unavailable("http-500"));
    }

    @Test
    void theDailyLimitsWindowIsTheUtcDayWithAMargin() {
        DailyLimitWindow utc = DailyLimitWindow.defaults();
        assertThat(utc.reopensAfter(Instant.parse("2026-03-14T15:30:00Z")))
                .isEqualTo(Instant.parse("2026-03-15T00:01:00Z"));
        assertThat(utc.reopensAfter(Instant.parse("2026-03-14T23:59:59Z")))
                .isEqualTo(Instant.parse("2026-03-15T00:01:00Z"));
        assertThat(utc.reopensAfter(Instant.parse("2026-03-15T00:00:20Z")))
                .as("NotifyNL's clock had not passed midnight yet: wait for it, not for a day")
                .isEqualTo(Instant.parse("2026-03-15T00:01:00Z"));
        assertThat(utc.reopensAfter(Instant.parse("2026-03-15T00:01:00Z")))
                .isEqualTo(Instant.parse("2026-03-16T00:01:00Z"));
        DailyLimitWindow amsterdam = new DailyLimitWindow(ZoneId.of("Europe/Amsterdam"), Duration.ZERO);
        assertThat(amsterdam.reopensAfter(Instant.parse("2026-07-01T12:00:00Z")))
                .isEqualTo(Instant.parse("2026-07-01T22:00:00Z"));
    }
}

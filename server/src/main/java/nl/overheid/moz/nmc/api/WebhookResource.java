package nl.overheid.moz.nmc.api;

import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.LinkedHashMap;
import java.util.Map;
import nl.overheid.moz.nmc.api.generated.dv.WebhookService;
import nl.overheid.moz.nmc.register.Dienstverlener;
import nl.overheid.moz.nmc.webhook.Webhooks;

/** The caller's webhook: its state, and resuming it after a pause (rate-limited like the feed: {@link RequestLimits}). */
public final class WebhookResource extends WebhookService {

    private final Webhooks webhooks;
    private final Responses responses;

    public WebhookResource(Webhooks webhooks, Responses responses) {
        this.webhooks = webhooks;
        this.responses = responses;
    }

    @Override
    protected void handleWebhookOpvragen(ServerRequest request, ServerResponse response) {
        Dienstverlener dv = Callers.of(request);
        responses.json(response, Status.OK_200, body(webhooks.state(dv.id()).orElseThrow(ProblemException::noWebhook)));
    }

    @Override
    protected void handleWebhookHervatten(ServerRequest request, ServerResponse response) {
        Dienstverlener dv = Callers.of(request);
        responses.json(
                response, Status.OK_200, body(webhooks.resume(dv.id()).orElseThrow(ProblemException::noWebhook)));
    }

    /** The contract's {@code Webhook}. */
    private static Map<String, Object> body(Webhooks.State state) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", state.paused() ? "gepauzeerd" : "actief");
        body.put("mislukkingen", state.mislukkingen());
        body.put(
                "gepauzeerdTot",
                state.gepauzeerdTot() == null ? null : state.gepauzeerdTot().toString());
        body.put("cursor", state.cursor());
        return body;
    }

    @Override
    public void afterStop() {
        // the generated default prints to stdout; the server logs its own shutdown
    }
}

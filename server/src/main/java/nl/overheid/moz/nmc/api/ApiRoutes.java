package nl.overheid.moz.nmc.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.helidon.http.Method;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The paths and methods the NMC serves, read from the published contracts (the DV API, the NotifyNL callback and
 * the operator API), so a request outside them is a 404 or a 405 with {@code Allow} before any handler runs, and
 * which operations need a DV or an operator token is what each contract says ({@code security: []} is open). Helidon routes by registration order and knows no 405; here a fixed path wins
 * over a template ({@code /notificaties/wijzigingen} over {@code /notificaties/{id}}), as in OpenAPI.
 */
public final class ApiRoutes {

    private static final Set<String> METHODS =
            Set.of("get", "put", "post", "delete", "options", "head", "patch", "trace");

    /** Who may call an operation: anyone, a DV (with a DV token) or an operator (with an operator token). */
    public enum Guard {
        OPEN,
        DV,
        OPERATOR
    }

    /**
     * One path of a contract: the methods it has and, per method, who may call it; {@code version}: its contract's
     * {@code info.version}, the {@code API-Version} of its answers.
     */
    public record Route(String template, Pattern pattern, Map<Method, Guard> guards, String version) {

        public boolean allows(Method method) {
            return guards.containsKey(method);
        }

        public Guard guard(Method method) {
            return guards.getOrDefault(method, Guard.DV);
        }

        /** The value of an {@code Allow} header. */
        public String allow() {
            return guards.keySet().stream().map(Method::text).collect(Collectors.joining(", "));
        }

        boolean fixed() {
            return !template.contains("{");
        }
    }

    private final List<Route> routes;
    private final String operatorBasePath;
    private final String operatorVersion;
    private final String dvVersion;

    private ApiRoutes(List<Route> routes, String operatorBasePath, String operatorVersion, String dvVersion) {
        this.operatorBasePath = operatorBasePath;
        this.operatorVersion = operatorVersion;
        this.dvVersion = dvVersion;
        // Fixed paths first, then the longer templates: the most specific match wins.
        this.routes = routes.stream()
                .sorted(Comparator.comparing((Route route) -> !route.fixed())
                        .thenComparing(route -> -route.template().length()))
                .toList();
    }

    /**
     * The routes of the DV API and the NotifyNL callback under {@code basePath}, of the operator API under
     * {@code operatorBasePath}, and {@code extraOpenGets}: paths outside the contracts answered to GET without a
     * token (the JWKS at its well-known location).
     */
    public static ApiRoutes of(
            ApiDocuments documents, String basePath, String operatorBasePath, String... extraOpenGets) {
        List<Route> routes = new ArrayList<>();
        add(routes, documents.dv(), basePath, Guard.DV);
        // The callback authenticates NotifyNL with its own token, in its handler: no DV token.
        String callbackVersion = version(documents.callback());
        documents
                .callback()
                .path("paths")
                .properties()
                .forEach(path -> routes.add(
                        route(basePath + path.getKey(), path.getValue(), Guard.OPEN, Guard.OPEN, callbackVersion)));
        add(routes, documents.operator(), operatorBasePath, Guard.OPERATOR);
        for (String path : extraOpenGets) {
            routes.add(new Route(
                    path, Pattern.compile(Pattern.quote(path)), Map.of(Method.GET, Guard.OPEN), documents.version()));
        }
        return new ApiRoutes(routes, operatorBasePath, version(documents.operator()), documents.version());
    }

    /** A contract's paths; its security (document-wide, or per operation) says who may call. */
    private static void add(List<Route> routes, JsonNode document, String basePath, Guard secured) {
        Guard documentDefault = document.path("security").isEmpty() ? Guard.OPEN : secured;
        String version = version(document);
        document.path("paths")
                .properties()
                .forEach(path -> routes.add(
                        route(basePath + path.getKey(), path.getValue(), documentDefault, secured, version)));
    }

    private static String version(JsonNode document) {
        return document.path("info").path("version").asText();
    }

    private static Route route(
            String template, JsonNode operations, Guard documentDefault, Guard secured, String version) {
        Map<Method, Guard> guards = new LinkedHashMap<>();
        operations.properties().forEach(operation -> {
            if (METHODS.contains(operation.getKey())) {
                JsonNode security = operation.getValue().path("security");
                guards.put(
                        Method.create(operation.getKey().toUpperCase(java.util.Locale.ROOT)),
                        security.isMissingNode() ? documentDefault : security.isEmpty() ? Guard.OPEN : secured);
            }
        });
        // A template parameter is one non-empty segment.
        String regex = java.util.Arrays.stream(template.split("(?=\\{)|(?<=})"))
                .map(part -> part.startsWith("{") ? "[^/]+" : Pattern.quote(part))
                .collect(Collectors.joining());
        return new Route(template, Pattern.compile(regex), java.util.Collections.unmodifiableMap(guards), version);
    }

    /**
     * The {@code API-Version} of an answer on {@code path}: its route's contract's, else (a path no contract has) the
     * operator API's under its base path and the DV API's elsewhere.
     */
    public String version(String path, Optional<Route> route) {
        return route.map(Route::version)
                .orElse(path != null && path.startsWith(operatorBasePath + "/") ? operatorVersion : dvVersion);
    }

    /** The route this path belongs to, if any. */
    public Optional<Route> match(String path) {
        if (path == null) {
            return Optional.empty(); // a request target Helidon parsed into no path (found by fuzzing): a 404
        }
        return routes.stream()
                .filter(route -> route.pattern().matcher(path).matches())
                .findFirst();
    }
}

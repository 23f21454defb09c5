package nl.overheid.moz.nmc.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The published OpenAPI documents, read from the classpath (copied from {@code api-spec/} at build time).
 * The server serves them, takes its {@code API-Version} from them and validates request bodies against
 * their schemas, so the running contract and the published one cannot differ.
 */
public final class ApiDocuments {

    public static final String DV_API = "api-spec/nmc-dv-api.yaml";
    public static final String NOTIFYNL_CALLBACK = "api-spec/notifynl-callback.yaml";
    public static final String OPERATOR_API = "api-spec/nmc-operator-api.yaml";

    private final String dvYaml;
    private final JsonNode dv;
    private final JsonNode callback;
    private final String operatorYaml;
    private final JsonNode operator;

    private ApiDocuments(String dvYaml, JsonNode dv, JsonNode callback, String operatorYaml, JsonNode operator) {
        this.dvYaml = dvYaml;
        this.dv = dv;
        this.callback = callback;
        this.operatorYaml = operatorYaml;
        this.operator = operator;
    }

    public static ApiDocuments load() {
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
        String dvYaml = read(DV_API);
        String operatorYaml = read(OPERATOR_API);
        try {
            return new ApiDocuments(
                    dvYaml,
                    yaml.readTree(dvYaml),
                    yaml.readTree(read(NOTIFYNL_CALLBACK)),
                    operatorYaml,
                    yaml.readTree(operatorYaml));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot parse the OpenAPI documents", e);
        }
    }

    private static String read(String resource) {
        try (InputStream in = ApiDocuments.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is not on the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code info.version} of the DV API: the {@code API-Version} of its answers (the others carry their own). */
    public String version() {
        return dv.path("info").path("version").asText();
    }

    public String dvYaml() {
        return dvYaml;
    }

    public JsonNode dv() {
        return dv;
    }

    public JsonNode callback() {
        return callback;
    }

    public String operatorYaml() {
        return operatorYaml;
    }

    /** The operator API (beheer-API): its own contract under its own base path. */
    public JsonNode operator() {
        return operator;
    }

    public RequestSchemas operatorSchemas() {
        return new RequestSchemas(operator);
    }

    public RequestSchemas dvSchemas() {
        return new RequestSchemas(dv);
    }

    public RequestSchemas callbackSchemas() {
        return new RequestSchemas(callback);
    }
}

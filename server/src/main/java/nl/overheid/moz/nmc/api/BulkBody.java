package nl.overheid.moz.nmc.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;
import nl.overheid.moz.nmc.acceptance.Acceptance;

/**
 * A bulk request's body, checked whole before anything of it is used, then handed out one item at a time. The check
 * reads every token (each string decoded, so malformed UTF-8 anywhere is found) and the envelope — an object with
 * only {@code notificaties}, a list of 1 to {@code maxItems} items — without building a tree; the items are then
 * parsed one by one from the same bytes. A maximal body (1,000 items, 4 MB) held as one tree stayed alive for the
 * whole call, and every young collection in that time copied it: the other DVs' calls waited in those pauses. Item by
 * item only the chunk being accepted is alive, beside the body's bytes (one array, outside the young generation).
 *
 * <p>It answers exactly as the tree of {@link JsonBodies#strict} does: a syntax error anywhere is a 400 before any item
 * is taken, and so are content after the object and a name given twice in one object (this reader's parser refuses it
 * whatever mapper it is given, so the list it checked is the one it hands out).
 */
final class BulkBody implements Iterable<JsonNode> {

    private static final String ITEMS = "notificaties";

    private final ObjectMapper mapper;
    /** Reads one item from the list's parser: the list goes on after it, which is no trailing content. */
    private final ObjectReader itemReader;

    private final byte[] body;
    private final int size;

    private BulkBody(ObjectMapper mapper, byte[] body, int size) {
        this.mapper = mapper;
        this.itemReader = mapper.reader().without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        this.body = body;
        this.size = size;
    }

    /**
     * Checks {@code body} whole.
     *
     * @throws ProblemException a 400 for a body that is no JSON, or whose envelope is wrong (all of its errors)
     */
    static BulkBody of(ObjectMapper mapper, byte[] body, int maxItems) {
        return of(mapper, body, maxItems, () -> {});
    }

    /**
     * {@link #of(ObjectMapper, byte[], int)}, calling {@code step} after every {@link Acceptance#STEP_ITEMS} items
     * checked (a caller's pace).
     */
    static BulkBody of(ObjectMapper mapper, byte[] body, int maxItems, Runnable step) {
        try (JsonParser parser = mapper.createParser(body).enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)) {
            JsonToken root = parser.nextToken();
            if (root == null) {
                throw JsonBodies.syntax();
            }
            if (root != JsonToken.START_OBJECT) {
                checkValue(parser);
                checkEnd(parser);
                throw ProblemException.invalid("/", "type", "Het verzoek is een object met notificaties.");
            }
            Set<String> names = new LinkedHashSet<>();
            JsonToken listToken = null;
            int listSize = 0;
            for (JsonToken token = parser.nextToken(); token != JsonToken.END_OBJECT; token = parser.nextToken()) {
                String name = parser.currentName();
                names.add(name);
                JsonToken value = parser.nextToken();
                if (name.equals(ITEMS)) {
                    listToken = value;
                }
                if (name.equals(ITEMS) && value == JsonToken.START_ARRAY) {
                    listSize = countItems(parser, step);
                } else {
                    checkValue(parser);
                }
            }
            checkEnd(parser);
            List<ProblemException.FieldError> errors = new ArrayList<>();
            for (String name : names) {
                if (RequestSchemas.hasControl(name) || RequestSchemas.hasUnpairedSurrogate(name)) {
                    // never echoed: the object is named instead
                    errors.add(new ProblemException.FieldError(
                            "/", "propertyNames", "Een veldnaam bevat een stuurteken of een losse surrogaat."));
                } else if (!name.equals(ITEMS)) {
                    errors.add(new ProblemException.FieldError(
                            "/" + name.replace("~", "~0").replace("/", "~1"),
                            "additionalProperties",
                            "Onbekend veld; alleen notificaties is toegestaan."));
                }
            }
            if (listToken == null) {
                errors.add(new ProblemException.FieldError("/notificaties", "required", "notificaties is verplicht."));
            } else if (listToken != JsonToken.START_ARRAY) {
                errors.add(new ProblemException.FieldError("/notificaties", "type", "notificaties is een lijst."));
            } else if (listSize == 0 || listSize > maxItems) {
                errors.add(new ProblemException.FieldError(
                        "/notificaties",
                        listSize == 0 ? "minItems" : "maxItems",
                        "notificaties bevat 1 tot " + maxItems + " notificaties."));
            }
            if (!errors.isEmpty()) {
                throw ProblemException.invalid(errors);
            }
            return new BulkBody(mapper, body, listSize);
        } catch (IOException e) {
            throw JsonBodies.syntax();
        }
    }

    /** Refuses content after the body's value. */
    private static void checkEnd(JsonParser parser) throws IOException {
        if (parser.nextToken() != null) {
            throw JsonBodies.syntax();
        }
    }

    /** Reads the rest of the array the parser is at the start of, every token decoded; returns its items. */
    private static int countItems(JsonParser parser, Runnable step) throws IOException {
        int items = 0;
        for (JsonToken token = parser.nextToken(); token != JsonToken.END_ARRAY; token = parser.nextToken()) {
            if (token == null) {
                throw new com.fasterxml.jackson.core.JsonParseException(parser, "unexpected end of input");
            }
            checkValue(parser);
            items++;
            if (items % Acceptance.STEP_ITEMS == 0) {
                step.run();
            }
        }
        return items;
    }

    /**
     * Reads the rest of the value the parser is at, every token decoded (a string's bytes are only checked when its
     * text is asked for).
     */
    private static void checkValue(JsonParser parser) throws IOException {
        int depth = 0;
        JsonToken token = parser.currentToken();
        while (true) {
            if (token == null) {
                throw new com.fasterxml.jackson.core.JsonParseException(parser, "unexpected end of input");
            }
            switch (token) {
                case START_OBJECT, START_ARRAY -> depth++;
                case END_OBJECT, END_ARRAY -> depth--;
                case VALUE_STRING, FIELD_NAME -> parser.getTextLength();
                case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> parser.getNumberValue(); // as the tree converts it
                default -> {
                    // true, false, null: read whole by the tokenizer
                }
            }
            if (depth == 0) {
                return;
            }
            token = parser.nextToken();
        }
    }

    /** How many items the list holds. */
    int size() {
        return size;
    }

    /** The items in order, each parsed when it is asked for. */
    @Override
    public Iterator<JsonNode> iterator() {
        JsonParser parser;
        try {
            parser = mapper.createParser(body);
            parser.nextToken(); // the object
            while (true) {
                parser.nextToken(); // a name
                boolean list = parser.currentName().equals(ITEMS);
                parser.nextToken(); // its value
                if (list) {
                    break;
                }
                parser.skipChildren();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("a body checked whole did not parse again", e);
        }
        return new Iterator<>() {
            private int next;

            @Override
            public boolean hasNext() {
                return next < size;
            }

            @Override
            public JsonNode next() {
                if (next >= size) {
                    throw new NoSuchElementException();
                }
                try {
                    parser.nextToken();
                    JsonNode item = itemReader.readTree(parser);
                    next++;
                    if (next == size) {
                        parser.close();
                    }
                    return item;
                } catch (IOException e) {
                    throw new UncheckedIOException("a body checked whole did not parse again", e);
                }
            }
        };
    }
}

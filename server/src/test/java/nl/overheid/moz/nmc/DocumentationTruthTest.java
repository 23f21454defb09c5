package nl.overheid.moz.nmc;

import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The documentation tells the truth about the code: no Markdown file and no main source calls a built thing
 * unbuilt, no Markdown file names a class or a path that does not exist, every "design §N" of the main code has
 * its heading in {@code server/ARCHITECTURE.md}, and the main code's Javadoc names only classes that exist.
 *
 * <p>It reads the working tree from the repository root (the directory holding {@code api-spec/}, found by walking
 * up from the working directory), skipping {@code target/}, {@code .dev/}, {@code node_modules/} and hidden
 * directories. It needs no database and no build output. Every failure lists each offence as
 * {@code file:line: token}.
 */
class DocumentationTruthTest {

    /**
     * What truly is not built, by the file and a text of the line that says so. This list documents the gaps: an
     * entry that no longer matches a line fails too, so it cannot outlive the gap.
     */
    private static final List<Gap> NOT_BUILT = List.of();

    /** Backticked capitalised words that are not this repository's classes: headers, libraries, Promela, files. */
    private static final Pattern ENUM_VALUE = Pattern.compile("^\\s+- ([A-Z][A-Za-z]+)$");

    private static final Set<String> NOT_CLASSES = Set.of(
            // HTTP headers, media-type and PostgreSQL words
            "Allow",
            "Location",
            "Authorization",
            "Accept",
            "OpenMetrics",
            "TimeZone",
            // the JDK's and the libraries' types, NotifyNL's error names
            "Integer",
            "MessageDigest",
            "ObjectMapper",
            "DbClient",
            "DbMapper",
            "ManualScheduler",
            "OutOfMemoryError",
            "BadRequestError",
            "ValidationError",
            "InvalidEmailError",
            "AuthError",
            "TooManyRequestsError",
            "RateLimitError",
            "NoResultFound",
            "EventletTimeout",
            // Kubernetes and CloudNativePG kinds
            "Deployment",
            "PodDisruptionBudget",
            "Pooler",
            "Cluster",
            "Job",
            // the Promela models' processes
            "Stopped",
            // the dev data's dienst names at the Profielservice
            "Meldingen",
            "Vergunningen",
            // OpenTelemetry's, ClickHouse's and MOZa's LDV wrapper's names (the processing log, design §9)
            "SimpleSpanProcessor",
            "BatchSpanProcessor",
            "SpanMapper",
            "PostgresRepository",
            "ClickHouseRepository",
            "ProcessingHandler",
            "HashHelper",
            "Map",
            "MergeTree",
            "JSONEachRow");

    /**
     * Classes the documentation already describes while the refactoring of issue 14 brings them. Remove an entry
     * once its class exists: an entry whose class exists fails, so the list stays short and true.
     */
    private static final Set<String> COMING = Set.of();

    private static final Set<String> SKIPPED_DIRECTORIES = Set.of("target", ".dev", "node_modules", ".git");
    private static final Set<String> FILE_EXTENSIONS = Set.of(
            "md",
            "sql",
            "yaml",
            "yml",
            "pml",
            "java",
            "json",
            "tsv",
            "sh",
            "xml",
            "jar",
            "log",
            "txt",
            "pgbench",
            "html",
            "properties");

    private static final String W = "(?:\\s|\\*|//)+"; // words may break over lines and comment prefixes
    private static final Pattern NOT_BUILT_CLAIM = Pattern.compile(
            String.join(
                    "|",
                    "\\bnot" + W + "(?:yet" + W + ")?built\\b",
                    "\\bbuilt" + W + "yet\\b",
                    "\\bunbuilt\\b",
                    "\\bniet" + W + "(?:meer" + W + ")?gebouwd\\b",
                    "\\bnot" + W + "(?:yet" + W + ")?implemented\\b",
                    "\\(reserved\\)",
                    "\\breserved\\s*:",
                    "\\|\\s*not" + W + "yet\\s*\\|"),
            Pattern.CASE_INSENSITIVE);

    private static final Pattern BACKTICKED = Pattern.compile("`([^`\\n]+)`");
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern PACKAGE_CLASS =
            Pattern.compile("^((?:[a-z][a-z0-9]*/)+)([A-Z][A-Za-z0-9*]*)((?:[.#][A-Za-z_]\\w*)*)(?:\\(.*\\))?$");
    private static final Pattern PACKAGE_ONLY = Pattern.compile("^[a-z][a-z0-9]*/$");
    private static final Pattern QUALIFIED = Pattern.compile(
            "^(nl\\.overheid\\.moz\\.nmc(?:\\.[a-z]\\w*)*)\\.([A-Z]\\w*)((?:[.#][A-Za-z_]\\w*)*)(?:\\(.*\\))?$");
    private static final Pattern CLASS_MEMBER =
            Pattern.compile("^([A-Z][A-Za-z0-9*]*)((?:[.#][A-Za-z_]\\w*)*)(?:\\(.*\\))?$");
    private static final Pattern TYPE_DECLARATION =
            Pattern.compile("\\b(?:class|interface|enum|record|@interface)\\s+([A-Z]\\w*)");
    private static final Pattern DESIGN_REFERENCE =
            Pattern.compile("design\\s+((?:§\\d+(?:\\.\\d+)?(?:\\s*(?:,|and|–|-)\\s*)?)+)");
    private static final Pattern SECTION = Pattern.compile("§(\\d+(?:\\.\\d+)?)");
    private static final Pattern README_REFERENCE =
            Pattern.compile("README(?:'s)?,?\\s+(§\\d+(?:\\.\\d+)?|\"[^\"]+\"|[A-Z][a-z]+\\b)");
    private static final Pattern JAVADOC_PATH = Pattern.compile(
            "\\{@code\\s+((?:[a-z][a-z0-9]*/)+)([A-Z]\\w*)((?:[.#][A-Za-z_]\\w*)*)(?:\\([^)]*\\))?\\s*}");
    private static final Pattern JAVADOC_LINK = Pattern.compile(
            "\\{@link(?:plain)?\\s+(nl\\.overheid\\.moz\\.nmc(?:\\.[a-z]\\w*)*)\\.([A-Z]\\w*)((?:[.#][A-Za-z_]\\w*)*)");
    private static final Pattern SCHEMA_NAME = Pattern.compile("^    ([A-Za-z]\\w*):\\s*$");

    private static Path root;
    private static List<Path> markdown;
    private static List<Path> mainJava;
    /** Every type declared in the repository's Java sources (main and test, any module), to the files declaring it. */
    private static final Map<String, List<Path>> TYPES = new HashMap<>();

    private static final Set<String> FILE_NAMES = new TreeSet<>();
    private static final Set<String> SCHEMAS = new TreeSet<>();
    private static final Set<String> TOP_LEVEL = new TreeSet<>();
    private static final Map<Path, String> TEXTS = new HashMap<>();

    @BeforeAll
    static void readTheRepository() throws IOException {
        root = findRoot();
        List<Path> files = walk(root);
        markdown = files.stream()
                .filter(f -> f.toString().endsWith(".md"))
                .sorted()
                .toList();
        List<Path> java = files.stream()
                .filter(f -> f.toString().endsWith(".java"))
                .filter(f -> relative(f).contains("/src/"))
                .toList();
        mainJava = java.stream()
                .filter(DocumentationTruthTest::isMainSource)
                .sorted()
                .toList();
        for (Path file : java) {
            String name = file.getFileName().toString();
            TYPES.computeIfAbsent(name.substring(0, name.length() - ".java".length()), k -> new ArrayList<>())
                    .add(file);
            Matcher declared = TYPE_DECLARATION.matcher(stripComments(text(file)));
            while (declared.find()) {
                List<Path> declaring = TYPES.computeIfAbsent(declared.group(1), k -> new ArrayList<>());
                if (!declaring.contains(file)) {
                    declaring.add(file);
                }
            }
        }
        files.forEach(f -> FILE_NAMES.add(f.getFileName().toString()));
        try (Stream<Path> top = Files.list(root)) {
            top.filter(p -> !SKIPPED_DIRECTORIES.contains(p.getFileName().toString()))
                    .forEach(p -> TOP_LEVEL.add(p.getFileName().toString()));
        }
        try (Stream<Path> specs = Files.list(root.resolve("api-spec"))) {
            for (Path spec : specs.filter(p -> p.toString().endsWith(".yaml")).toList()) {
                boolean inSchemas = false;
                for (String line : text(spec).split("\n")) {
                    if (line.equals("  schemas:")) {
                        inSchemas = true;
                    } else if (inSchemas && !line.isBlank() && !line.startsWith("   ")) {
                        inSchemas = false;
                    }
                    Matcher schema = SCHEMA_NAME.matcher(line);
                    if (inSchemas && schema.matches()) {
                        SCHEMAS.add(schema.group(1));
                    }
                    // the contracts' enum values (a contact type, a preference) are values, not classes
                    Matcher value = ENUM_VALUE.matcher(line);
                    if (value.matches()) {
                        SCHEMAS.add(value.group(1));
                    }
                }
            }
        }
    }

    /** (a) Nothing built is called unbuilt; what is not built is in {@link #NOT_BUILT}, and nothing else. */
    @Test
    void nothingBuiltIsCalledUnbuilt() {
        List<String> offences = new ArrayList<>();
        Set<Gap> used = new LinkedHashSet<>();
        for (Path file : concat(markdown, mainJava)) {
            String text = text(file);
            Matcher claim = NOT_BUILT_CLAIM.matcher(text);
            while (claim.find()) {
                int line = lineOf(text, claim.start());
                String lineText = lineText(text, line);
                Gap gap = NOT_BUILT.stream()
                        .filter(g -> relative(file).equals(g.file()) && lineText.contains(g.lineContains()))
                        .findFirst()
                        .orElse(null);
                if (gap == null) {
                    offences.add(at(file, line) + oneLine(claim.group()) + "  — in: " + lineText.strip());
                } else {
                    used.add(gap);
                }
            }
        }
        for (Gap gap : NOT_BUILT) {
            if (!used.contains(gap)) {
                offences.add("NOT_BUILT entry " + gap + " matches no line any more: remove it from the list");
            }
        }
        report("says something is not built (if it truly is not, add it to NOT_BUILT)", offences);
    }

    /** (b) Every class and path a Markdown file names in backticks, and every relative link, exists. */
    @Test
    void markdownNamesOnlyClassesAndPathsThatExist() {
        List<String> offences = new ArrayList<>();
        for (Path file : markdown) {
            String[] lines = text(file).split("\n", -1);
            boolean fenced = false;
            for (int i = 0; i < lines.length; i++) {
                String line = lines[i];
                if (line.strip().startsWith("```")) {
                    fenced = !fenced;
                    continue;
                }
                if (fenced) {
                    continue;
                }
                Matcher token = BACKTICKED.matcher(line);
                while (token.find()) {
                    String problem = checkToken(token.group(1));
                    if (problem != null) {
                        offences.add(at(file, i + 1) + "`" + token.group(1) + "` " + problem);
                    }
                }
                Matcher link = LINK.matcher(line);
                while (link.find()) {
                    String target = link.group(1);
                    if (target.startsWith("http:")
                            || target.startsWith("https:")
                            || target.startsWith("mailto:")
                            || target.startsWith("#")) {
                        continue;
                    }
                    String path = target.replaceAll("#.*$", "");
                    if (!Files.exists(file.getParent().resolve(path).normalize())) {
                        offences.add(at(file, i + 1) + "(" + target + ") links to a file that does not exist");
                    }
                }
            }
        }
        for (String coming : COMING) {
            String simple = coming.substring(coming.lastIndexOf('/') + 1);
            if (TYPES.containsKey(simple)) {
                offences.add("COMING entry " + coming + " exists now: remove it from the list");
            }
        }
        report("names a class, member or path that does not exist", offences);
    }

    /** (c) Every section the main code points to exists: "design §N" in server/ARCHITECTURE.md, "README X" in it. */
    @Test
    void everySectionTheCodeNamesExists() {
        Set<String> designSections = new TreeSet<>();
        for (String line : text(root.resolve("server/ARCHITECTURE.md")).split("\n")) {
            if (line.startsWith("#")) {
                Matcher section = SECTION.matcher(line);
                while (section.find()) {
                    designSections.add(section.group(1));
                }
            }
        }
        List<String> readmeHeadings = text(root.resolve("README.md"))
                .lines()
                .filter(l -> l.startsWith("#"))
                .map(l -> l.toLowerCase(Locale.ROOT))
                .toList();
        List<String> offences = new ArrayList<>();
        for (Path file : mainJava) {
            String text = text(file);
            Matcher reference = DESIGN_REFERENCE.matcher(text);
            while (reference.find()) {
                Matcher section = SECTION.matcher(reference.group(1));
                while (section.find()) {
                    if (!designSections.contains(section.group(1))) {
                        offences.add(at(file, lineOf(text, reference.start())) + "design §" + section.group(1)
                                + " has no heading in server/ARCHITECTURE.md");
                    }
                }
            }
            Matcher readme = README_REFERENCE.matcher(text);
            while (readme.find()) {
                String name = readme.group(1).replace("\"", "").toLowerCase(Locale.ROOT);
                if (readmeHeadings.stream().noneMatch(h -> h.contains(name))) {
                    offences.add(at(file, lineOf(text, readme.start())) + oneLine(readme.group())
                            + " names a README section that does not exist (the architecture is server/ARCHITECTURE.md,"
                            + " cited as design §N)");
                }
            }
        }
        report("points to a section that does not exist", offences);
    }

    /** (d) The main code's Javadoc names only classes that exist ({@code pkg/Class}, fully qualified links). */
    @Test
    void javadocNamesOnlyClassesThatExist() {
        List<String> offences = new ArrayList<>();
        for (Path file : mainJava) {
            String text = text(file);
            for (Pattern pattern : List.of(JAVADOC_PATH, JAVADOC_LINK)) {
                Matcher reference = pattern.matcher(text);
                while (reference.find()) {
                    String packagePath = reference.group(1).replace('.', '/');
                    packagePath = packagePath.endsWith("/") ? packagePath : packagePath + "/";
                    String problem = checkClass(packagePath, reference.group(2), reference.group(3));
                    if (problem != null) {
                        offences.add(
                                at(file, lineOf(text, reference.start())) + oneLine(reference.group()) + " " + problem);
                    }
                }
            }
        }
        report("names a class in its Javadoc that does not exist", offences);
    }

    // --- the checks of one token

    /** Why a backticked token names something that does not exist, or null when it does or is not a name. */
    private static String checkToken(String token) {
        if (token.isBlank() || token.chars().anyMatch(Character::isWhitespace) || token.contains("://")) {
            return null;
        }
        int slash = token.indexOf('/');
        if (slash > 0 && TOP_LEVEL.contains(token.substring(0, slash))) {
            return checkPath(token);
        }
        if (COMING.contains(token.replaceAll("[.#(].*$", ""))) {
            return null;
        }
        Matcher qualified = QUALIFIED.matcher(token);
        if (qualified.matches()) {
            return checkClass(qualified.group(1).replace('.', '/') + "/", qualified.group(2), qualified.group(3));
        }
        Matcher packaged = PACKAGE_CLASS.matcher(token);
        if (packaged.matches()) {
            return checkClass(packaged.group(1), packaged.group(2), packaged.group(3));
        }
        if (PACKAGE_ONLY.matcher(token).matches()) {
            String name = token.substring(0, token.length() - 1);
            boolean exists = TYPES.values().stream()
                    .flatMap(List::stream)
                    .anyMatch(f -> relative(f).contains("/java/nl/overheid/moz/nmc/" + name + "/")
                            || relative(f).contains("/" + name + "/"));
            return exists
                            || TOP_LEVEL.contains(name)
                            || Set.of("target/", "build/").contains(token)
                    ? null
                    : "is no package or directory of this repository";
        }
        Matcher member = CLASS_MEMBER.matcher(token);
        if (member.matches() && member.group(1).chars().anyMatch(Character::isLowerCase)) {
            String members = member.group(2);
            if (!members.isEmpty()
                    && !members.contains("#")
                    && FILE_EXTENSIONS.contains(members.substring(members.lastIndexOf('.') + 1))) {
                return FILE_NAMES.contains(token) ? null : "is no file of this repository";
            }
            if (FILE_NAMES.contains(token)) {
                return null; // a file such as Dockerfile
            }
            return checkClass(null, member.group(1), members);
        }
        return null;
    }

    /** Why {@code Class.member…} (in the package path when given) does not exist, or null when it does. */
    private static String checkClass(String packagePath, String simpleName, String members) {
        if (NOT_CLASSES.contains(simpleName) || SCHEMAS.contains(simpleName)) {
            return null;
        }
        Pattern name = Pattern.compile(simpleName.replace("*", "\\w*"));
        List<Path> declaring = TYPES.entrySet().stream()
                .filter(e -> name.matcher(e.getKey()).matches())
                .flatMap(e -> e.getValue().stream())
                .filter(f -> packagePath == null || inPackage(f, packagePath))
                .distinct()
                .toList();
        if (declaring.isEmpty()) {
            return packagePath == null
                    ? "is no class of this repository"
                    : "is no class in a package " + packagePath + " of this repository";
        }
        for (String part : members.split("[.#]")) {
            if (part.isEmpty()) {
                continue;
            }
            Pattern word = Pattern.compile("\\b" + Pattern.quote(part) + "\\b");
            if (declaring.stream()
                    .noneMatch(f -> word.matcher(stripComments(text(f))).find())) {
                return "names a member " + part + " that " + simpleName + " does not have";
            }
        }
        return null;
    }

    /** Whether a source file lies in a package ending with the path (a nested type counts for its outer class). */
    private static boolean inPackage(Path file, String packagePath) {
        String path = relative(file);
        String directory = path.substring(0, path.lastIndexOf('/') + 1);
        return directory.endsWith("/" + packagePath);
    }

    /** Why a repository path does not exist, or null when it does; … and * match anything, generated dirs are skipped. */
    private static String checkPath(String token) {
        if (token.contains("<") || token.contains("{") || token.contains("$")) {
            return null;
        }
        String path = token.replaceAll("[.,;:]$", "");
        for (String segment : path.split("/")) {
            if (segment.equals("target") || segment.equals("build")) {
                return null;
            }
        }
        if (!path.contains("…") && !path.contains("*")) {
            return Files.exists(root.resolve(path)) ? null : "is no path of this repository";
        }
        StringBuilder glob = new StringBuilder();
        for (String piece : path.split("(?=[…*])|(?<=[…*])")) {
            glob.append(
                    switch (piece) {
                        case "…" -> ".*";
                        case "*" -> "[^/]*";
                        default -> Pattern.quote(piece);
                    });
        }
        Pattern pattern = Pattern.compile(glob + (path.endsWith("/") ? ".*" : "(/.*)?"));
        try (Stream<Path> files = Files.walk(root)) {
            boolean found = files.filter(f -> !skipped(f))
                    .map(f -> relative(f) + (Files.isDirectory(f) ? "/" : ""))
                    .anyMatch(f -> pattern.matcher(f).matches());
            return found ? null : "matches no path of this repository";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // --- reading the repository

    private static Path findRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve("api-spec"))) {
                return dir;
            }
        }
        throw new IllegalStateException(
                "no directory holding api-spec/ above " + Path.of("").toAbsolutePath());
    }

    private static List<Path> walk(Path start) throws IOException {
        try (Stream<Path> files = Files.walk(start)) {
            return files.filter(Files::isRegularFile).filter(f -> !skipped(f)).toList();
        }
    }

    private static boolean skipped(Path file) {
        for (Path part : root.relativize(file)) {
            String name = part.toString();
            if (SKIPPED_DIRECTORIES.contains(name) || name.startsWith(".") && !name.equals(".ci")) {
                return true;
            }
        }
        return false;
    }

    private static boolean isMainSource(Path file) {
        String path = relative(file);
        return path.startsWith("server/src/main/java/")
                || path.matches("conformance-tests/[^/]+/src/main/java/.*")
                || path.startsWith("clients/examples/src/main/java/");
    }

    private static String text(Path file) {
        return TEXTS.computeIfAbsent(file, f -> {
            try {
                return Files.readString(f);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /** Java text without its comments, so that a class named only in a comment does not count as declared. */
    private static String stripComments(String java) {
        return java.replaceAll("(?s)/\\*.*?\\*/", " ").replaceAll("//[^\n]*", " ");
    }

    private static String relative(Path file) {
        return root.relativize(file).toString().replace('\\', '/');
    }

    private static int lineOf(String text, int offset) {
        int line = 1;
        for (int i = 0; i < offset; i++) {
            if (text.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }

    private static String lineText(String text, int line) {
        return text.split("\n", -1)[line - 1];
    }

    private static String at(Path file, int line) {
        return relative(file) + ":" + line + ": ";
    }

    private static String oneLine(String text) {
        return text.replaceAll("\\s+", " ");
    }

    private static List<Path> concat(List<Path> first, List<Path> second) {
        List<Path> all = new ArrayList<>(first);
        all.addAll(second);
        return all;
    }

    private static void report(String what, List<String> offences) {
        if (!offences.isEmpty()) {
            fail(offences.size() + " place(s) where the repository " + what + ":\n  " + String.join("\n  ", offences));
        }
    }

    /** A line that may say what is not built: in this file (relative to the root), containing this text. */
    private record Gap(String file, String lineContains) {}
}

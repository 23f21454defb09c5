package nl.overheid.moz.nmc.simulator;

import java.time.Clock;
import java.util.ArrayDeque;
import java.util.List;
import java.util.function.Consumer;

/**
 * What the routes of the Profielservice simulator share: the FSC Outway in front, the parties, the log, the clock
 * and the journals of calls and deletes (each the newest {@value #JOURNAL_LIMIT}, like WireMock's own journal).
 * Thread-safe.
 */
final class ProfielContext {

    static final int JOURNAL_LIMIT = 20_000;

    private final FscOutway fsc;
    private final ProfielRegistry registry;
    private final Consumer<String> log;
    private final Clock clock;
    private final ArrayDeque<ProfielserviceSimulator.Call> calls = new ArrayDeque<>();
    private final ArrayDeque<ProfielserviceSimulator.Delete> deletes = new ArrayDeque<>();

    ProfielContext(FscOutway fsc, ProfielRegistry registry, Consumer<String> log, Clock clock) {
        this.fsc = fsc;
        this.registry = registry;
        this.log = log;
        this.clock = clock;
    }

    FscOutway fsc() {
        return fsc;
    }

    ProfielRegistry registry() {
        return registry;
    }

    Clock clock() {
        return clock;
    }

    /** One line; the caller guarantees it holds no personal data. */
    void log(String line) {
        log.accept(line);
    }

    synchronized void addCall(ProfielserviceSimulator.Call call) {
        if (calls.size() == JOURNAL_LIMIT) {
            calls.removeFirst();
        }
        calls.addLast(call);
    }

    synchronized void addDelete(ProfielserviceSimulator.Delete delete) {
        if (deletes.size() == JOURNAL_LIMIT) {
            deletes.removeFirst();
        }
        deletes.addLast(delete);
    }

    synchronized List<ProfielserviceSimulator.Call> calls() {
        return List.copyOf(calls);
    }

    synchronized List<ProfielserviceSimulator.Delete> deletes() {
        return List.copyOf(deletes);
    }

    synchronized void clear() {
        calls.clear();
        deletes.clear();
    }
}

package nl.overheid.moz.nmc.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * What one benchmark produced: its figures, its notes (what it measured exactly, what stands in the way of a
 * target), and how it ended.
 */
public final class BenchmarkResult {

    /** How a benchmark ended. */
    public enum Status {
        /** It ran; its figures say whether the targets are met. */
        OK,
        /** What it measures is not in this build (e.g. the bulk endpoint answers 404). */
        NOT_AVAILABLE,
        /** It could not finish; the notes say why. */
        FAILED
    }

    private final String name;
    private final String measures;
    private final List<Figure> figures = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private Status status = Status.OK;
    private double seconds;

    public BenchmarkResult(String name, String measures) {
        this.name = name;
        this.measures = measures;
    }

    public BenchmarkResult add(Figure figure) {
        figures.add(figure);
        return this;
    }

    public BenchmarkResult note(String note) {
        notes.add(note);
        return this;
    }

    public BenchmarkResult status(Status status) {
        this.status = status;
        return this;
    }

    void seconds(double seconds) {
        this.seconds = seconds;
    }

    public String name() {
        return name;
    }

    public String measures() {
        return measures;
    }

    public List<Figure> figures() {
        return figures;
    }

    public List<String> notes() {
        return notes;
    }

    public Status status() {
        return status;
    }

    public double seconds() {
        return seconds;
    }
}

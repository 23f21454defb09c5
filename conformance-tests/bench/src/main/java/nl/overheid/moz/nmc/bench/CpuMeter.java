package nl.overheid.moz.nmc.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Where the CPU went during a phase (Linux {@code /proc}): the NMC's process, the PostgreSQL cluster (the
 * postmaster, its live backends and the backends that already exited), the harness (this JVM: load
 * generator and the parties' stand-ins, plus the pgbench clients it ran and waited for), the kernel's interrupt work
 * (the loopback network's among it), the time the host gave this machine's CPUs to others while they had work
 * (steal: a virtual machine's noise, which the rest of the figures cannot show) and everything else on the machine
 * (other users: the noise). In CPU seconds, so
 * "PostgreSQL used most of the CPU" becomes a number. Best effort: without {@code /proc} it reports nothing.
 */
public final class CpuMeter {

    private static final double TICKS_PER_SECOND = 100.0; // USER_HZ on Linux

    private final long nmcPid;
    private final long postmasterPid;
    private final Snapshot start;

    private CpuMeter(long nmcPid, long postmasterPid) {
        this.nmcPid = nmcPid;
        this.postmasterPid = postmasterPid;
        this.start = snapshot();
    }

    /** Starts measuring; {@code nmcPid} or {@code postmasterPid} may be -1 when unknown. */
    public static CpuMeter start(long nmcPid, long postmasterPid) {
        return new CpuMeter(nmcPid, postmasterPid);
    }

    private record Snapshot(
            long nmc,
            long postgres,
            long bench,
            long machineBusy,
            long machineTotal,
            long interrupts,
            long stolen,
            long nanos) {}

    /** CPU seconds per party since the start, and each one's share of the machine's capacity. */
    public Map<String, Object> stop() {
        Snapshot end = snapshot();
        Map<String, Object> used = new LinkedHashMap<>();
        double wall = (end.nanos() - start.nanos()) / 1e9;
        if (end.machineTotal() == 0 || wall <= 0) {
            return used;
        }
        double nmc = (end.nmc() - start.nmc()) / TICKS_PER_SECOND;
        double postgres = (end.postgres() - start.postgres()) / TICKS_PER_SECOND;
        double bench = (end.bench() - start.bench()) / TICKS_PER_SECOND;
        double busy = (end.machineBusy() - start.machineBusy()) / TICKS_PER_SECOND;
        double capacity = (end.machineTotal() - start.machineTotal()) / TICKS_PER_SECOND;
        double interrupts = (end.interrupts() - start.interrupts()) / TICKS_PER_SECOND;
        double stolen = (end.stolen() - start.stolen()) / TICKS_PER_SECOND;
        used.put("cpuSecondsNmc", Latencies.round(nmc));
        used.put("cpuSecondsPostgres", Latencies.round(postgres));
        used.put("cpuSecondsHarness", Latencies.round(bench));
        used.put("cpuSecondsInterrupts", Latencies.round(interrupts));
        used.put("cpuSecondsStolen", Latencies.round(stolen));
        used.put("cpuSecondsOther", Latencies.round(Math.max(0, busy - nmc - postgres - bench - interrupts - stolen)));
        used.put("cpuSecondsIdle", Latencies.round(Math.max(0, capacity - busy)));
        used.put("wallSeconds", Latencies.round(wall));
        return used;
    }

    /** Two measurements' figures added (all are seconds), as one measurement of both spans. */
    public static Map<String, Object> sum(Map<String, Object> a, Map<String, Object> b) {
        Map<String, Object> both = new LinkedHashMap<>(a);
        b.forEach((name, seconds) -> both.merge(
                name, seconds, (x, y) -> Latencies.round(((Number) x).doubleValue() + ((Number) y).doubleValue())));
        return both;
    }

    private Snapshot snapshot() {
        long[] machine = machine();
        return new Snapshot(
                nmcPid > 0 ? process(nmcPid, false) : 0,
                postmasterPid > 0 ? cluster() : 0,
                process(ProcessHandle.current().pid(), true),
                machine[0],
                machine[1],
                machine[2],
                machine[3],
                System.nanoTime());
    }

    /** The postmaster with its exited children, plus every live child. */
    private long cluster() {
        long total = process(postmasterPid, true);
        try (Stream<Path> entries = Files.list(Path.of("/proc"))) {
            for (Path entry : entries.toList()) {
                String name = entry.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                List<String> stat = stat(Long.parseLong(name));
                if (stat.size() > 16 && stat.get(3).equals(Long.toString(postmasterPid))) {
                    total += Long.parseLong(stat.get(13)) + Long.parseLong(stat.get(14));
                }
            }
        } catch (IOException | RuntimeException e) {
            return total;
        }
        return total;
    }

    /** utime + stime (and, with {@code children}, of waited-for children) in ticks. */
    private static long process(long pid, boolean children) {
        List<String> stat = stat(pid);
        if (stat.size() < 17) {
            return 0;
        }
        long ticks = Long.parseLong(stat.get(13)) + Long.parseLong(stat.get(14));
        if (children) {
            ticks += Long.parseLong(stat.get(15)) + Long.parseLong(stat.get(16));
        }
        return ticks;
    }

    /** The fields of /proc/PID/stat, the command name (which may hold spaces) as one field. */
    private static List<String> stat(long pid) {
        try {
            String text = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            int open = text.indexOf('(');
            int close = text.lastIndexOf(')');
            List<String> fields = new java.util.ArrayList<>();
            fields.add(text.substring(0, open).trim());
            fields.add(text.substring(open + 1, close));
            fields.addAll(List.of(text.substring(close + 2).trim().split(" ")));
            return fields;
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }

    /**
     * Busy, total, interrupt (irq and softirq) and stolen ticks of all CPUs (/proc/stat's first line: user, nice,
     * system, idle, iowait, irq, softirq, steal).
     */
    private static long[] machine() {
        try {
            String[] fields =
                    Files.readAllLines(Path.of("/proc/stat")).getFirst().trim().split("\\s+");
            long total = 0;
            long idle = 0;
            long interrupts = 0;
            long stolen = 0;
            for (int i = 1; i < fields.length && i <= 8; i++) {
                long value = Long.parseLong(fields[i]);
                total += value;
                switch (i) {
                    case 4, 5 -> idle += value; // idle, iowait
                    case 6, 7 -> interrupts += value;
                    case 8 -> stolen += value;
                    default -> {}
                }
            }
            return new long[] {total - idle, total, interrupts, stolen};
        } catch (IOException | RuntimeException e) {
            return new long[] {0, 0, 0, 0};
        }
    }

    /** The postmaster's pid from the data directory's postmaster.pid, or -1. */
    public static long postmasterPid(Path dataDirectory) {
        try {
            return Long.parseLong(Files.readAllLines(dataDirectory.resolve("postmaster.pid"))
                    .getFirst()
                    .trim());
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}

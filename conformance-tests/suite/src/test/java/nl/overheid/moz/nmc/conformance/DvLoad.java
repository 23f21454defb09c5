package nl.overheid.moz.nmc.conformance;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import nl.overheid.moz.nmc.simulator.NotifyNlSimulator;
import nl.overheid.moz.nmc.testing.Http;
import nl.overheid.moz.nmc.testing.TestNmc;

/**
 * DVs submitting decentralised notifications at a steady pace, the way a careful DV client does: a request that
 * got no answer, a 5xx or a 429 is sent again, byte for byte (same dvRef and payload), until the NMC answers 202
 * (or 200, a repeat); some requests that did get their 202 are repeated once more on purpose. Each notification's
 * recipient chooses its outcome at NotifyNL's simulator, so the test knows the final status every 202 must reach.
 */
final class DvLoad implements AutoCloseable {

    /** What NotifyNL's simulator does with an e-mail, and what that must make of the notification. */
    enum Outcome {
        DELIVERED(null, "definitief-bezorgd", 1),
        DELIVERED_SLOW_CALLBACK(NotifyNlSimulator.SLOW_CALLBACK_ADDRESS, "definitief-bezorgd", 1),
        PERMANENT_FAILURE(NotifyNlSimulator.PERM_FAIL_ADDRESS, "niet-bezorgbaar", 1),
        /** Resent once; the resend fails again. */
        TEMPORARY_FAILURE(NotifyNlSimulator.TEMP_FAIL_ADDRESS, "niet-bezorgbaar", 2),
        /** No receipt: reconciliation finds the technical failure, twice. */
        TECHNICAL_FAILURE(NotifyNlSimulator.NO_CALLBACK_ADDRESS, "technisch-mislukt", 2);

        final String address;
        final String finalStatus;
        final int pogingen;

        Outcome(String address, String finalStatus, int pogingen) {
            this.address = address;
            this.finalStatus = finalStatus;
            this.pogingen = pogingen;
        }
    }

    /** The mix of outcomes most tests use: mostly deliveries, every failure path present. */
    static final Map<Outcome, Integer> MIXED = Map.of(
            Outcome.DELIVERED,
            70,
            Outcome.DELIVERED_SLOW_CALLBACK,
            5,
            Outcome.PERMANENT_FAILURE,
            10,
            Outcome.TEMPORARY_FAILURE,
            10,
            Outcome.TECHNICAL_FAILURE,
            5);

    /** One notification as the DV asked for it and what it was told. */
    static final class Submission {
        final int index;
        final String dv;
        final String dvRef;
        final Outcome outcome;
        final String body;
        final boolean repeat;
        /** Every id the NMC answered for this request (a retry or repeat must give the same one). */
        final Set<UUID> ids = ConcurrentHashMap.newKeySet();

        final AtomicInteger tries = new AtomicInteger();
        final AtomicInteger answers = new AtomicInteger();
        volatile Instant acceptedAt;
        volatile Integer firstStatus;

        Submission(int index, String dv, String dvRef, Outcome outcome, String body, boolean repeat) {
            this.index = index;
            this.dv = dv;
            this.dvRef = dvRef;
            this.outcome = outcome;
            this.body = body;
            this.repeat = repeat;
        }

        UUID id() {
            return ids.iterator().next();
        }

        boolean accepted() {
            return answers.get() >= (repeat ? 2 : 1);
        }
    }

    private static final String PATH = "/api/nmc/v1/decentraal/notificaties";

    private final List<Submission> submissions = new ArrayList<>();
    private final Map<String, String> tokens;
    private final IntFunction<String> target;
    private final List<String> refused = new CopyOnWriteArrayList<>();
    private final AtomicInteger answersWithoutAcceptance = new AtomicInteger();
    private final ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor();
    private final Map<String, Http> https = new ConcurrentHashMap<>();
    private volatile boolean stopped;

    /**
     * @param count    notifications
     * @param dvs      the DVs' OINs, taking turns
     * @param mix      outcome weights
     * @param repeatShare share of accepted requests sent once more on purpose
     * @param target   the base URL the n-th request (and its retries) goes to
     */
    DvLoad(
            long seed,
            int count,
            List<String> dvs,
            Map<Outcome, Integer> mix,
            double repeatShare,
            FaultRig rig,
            IntFunction<String> target) {
        this.target = target;
        this.tokens = new ConcurrentHashMap<>();
        dvs.forEach(dv -> tokens.put(dv, rig.iam.token(dv)));
        Random random = new Random(seed);
        List<Outcome> weighted = new ArrayList<>();
        mix.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .forEach(entry -> weighted.addAll(java.util.Collections.nCopies(entry.getValue(), entry.getKey())));
        for (int i = 0; i < count; i++) {
            String dv = dvs.get(i % dvs.size());
            Outcome outcome = weighted.get(random.nextInt(weighted.size()));
            String dvRef = rig.values.dvRef("fault");
            String address = outcome.address != null ? outcome.address : rig.values.email("fault");
            String body = Http.json(Map.of(
                    "dvRef",
                    dvRef,
                    "berichttype",
                    TestNmc.BERICHTTYPE,
                    "emailadres",
                    address,
                    "personalisation",
                    Map.of("onderwerp", "Fouttest " + i)));
            submissions.add(new Submission(i, dv, dvRef, outcome, body, random.nextDouble() < repeatShare));
        }
    }

    /** Submits {@code perSecond} requests a second from now on, each on its own virtual thread; returns at once. */
    DvLoad start(double perSecond) {
        long start = System.nanoTime();
        for (Submission submission : submissions) {
            long due = start + (long) (submission.index * 1e9 / perSecond);
            clients.submit(() -> {
                FaultRig.pause(Duration.ofNanos(Math.max(0, due - System.nanoTime())));
                submit(submission);
            });
        }
        return this;
    }

    private void submit(Submission submission) {
        String token = tokens.get(submission.dv);
        int answers = submission.repeat ? 2 : 1;
        for (int got = 0; got < answers && !stopped; ) {
            submission.tries.incrementAndGet();
            String base = target.apply(submission.index);
            Http.Response response;
            try {
                response = https.computeIfAbsent(base, Http::new).post(PATH, token, submission.body);
            } catch (UncheckedIOException | IllegalStateException noAnswer) {
                FaultRig.pause(Duration.ofMillis(200)); // connection refused or cut: the NMC is down
                continue;
            }
            int status = response.status();
            if (status == 202 || status == 200) {
                if (submission.firstStatus == null) {
                    submission.firstStatus = status;
                    submission.acceptedAt = Instant.now();
                }
                submission.ids.add(UUID.fromString(response.json().path("id").asText()));
                submission.answers.incrementAndGet();
                got++;
            } else if (status >= 500 || status == 429) {
                answersWithoutAcceptance.incrementAndGet();
                FaultRig.pause(Duration.ofMillis(status == 429 ? 1000 : 200));
            } else {
                refused.add(submission.dvRef + ": " + status + " " + response.body());
                return;
            }
        }
    }

    /** Waits until every request was accepted (and every repeat answered); fails on any refusal. */
    void awaitAccepted(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!submissions.stream().allMatch(Submission::accepted)) {
            if (!refused.isEmpty()) {
                throw new AssertionError("the NMC refused requests a DV may retry: " + refused);
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(
                        submissions.stream().filter(s -> !s.accepted()).count() + " request(s) not accepted within "
                                + timeout);
            }
            FaultRig.pause(Duration.ofMillis(100));
        }
        if (!refused.isEmpty()) {
            throw new AssertionError("the NMC refused requests a DV may retry: " + refused);
        }
    }

    /** How many requests have been answered with their 202 so far. */
    long acceptedSoFar() {
        return submissions.stream().filter(s -> !s.ids.isEmpty()).count();
    }

    List<Submission> submissions() {
        return submissions;
    }

    /** Answers that were no acceptance (5xx, 429) and were retried; connection failures not counted. */
    int retriedAnswers() {
        return answersWithoutAcceptance.get();
    }

    /** Requests sent in all, retries and repeats included. */
    int requests() {
        return submissions.stream().mapToInt(s -> s.tries.get()).sum();
    }

    @Override
    public void close() {
        stopped = true;
        clients.shutdownNow();
        try {
            clients.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

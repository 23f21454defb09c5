package nl.overheid.moz.nmc.bench;

import java.net.http.HttpRequest;
import java.nio.ByteBuffer;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A request body over a byte array built beforehand, handed to the client in views of {@value #SLICE} bytes of that
 * array, one per demanded item, never copied. The JDK's {@code BodyPublishers.ofByteArray} copies the whole array into
 * new 16 KB buffers at every subscription, before the first byte leaves: for the flood's 4 MB bodies, about fifty a
 * second of which the NMC refuses after reading 256 KB at most, that was a tenth of a core of the two the NMC shares
 * with the harness (JFR of the harness, {@code RequestPublishers$ByteArrayPublisher.copy} the top frame), spent by a
 * load generator a remote attacker would not put on the NMC's cores. The views are writable over the shared array;
 * the clients only read them.
 */
final class ArrayBody implements HttpRequest.BodyPublisher {

    /** The size of each view. */
    static final int SLICE = 64 * 1024;

    private final byte[] bytes;

    ArrayBody(byte[] bytes) {
        this.bytes = bytes;
    }

    @Override
    public long contentLength() {
        return bytes.length;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super ByteBuffer> subscriber) {
        subscriber.onSubscribe(new Slices(subscriber));
    }

    /** One subscription: the views in order, as many as demanded; a demand made inside onNext is served by the loop. */
    private final class Slices implements Flow.Subscription {
        private final Flow.Subscriber<? super ByteBuffer> subscriber;
        private final AtomicLong demand = new AtomicLong();
        private final AtomicBoolean emitting = new AtomicBoolean();
        private volatile boolean cancelled;
        private int position;
        private boolean completed;

        private Slices(Flow.Subscriber<? super ByteBuffer> subscriber) {
            this.subscriber = subscriber;
        }

        @Override
        public void request(long n) {
            if (n <= 0) {
                cancelled = true;
                subscriber.onError(new IllegalArgumentException("a demand must be positive (Flow §3.9): " + n));
                return;
            }
            demand.accumulateAndGet(n, (a, b) -> a + b < 0 ? Long.MAX_VALUE : a + b);
            // one thread emits at a time; another demand meanwhile is picked up by its loop
            while (emitting.compareAndSet(false, true)) {
                try {
                    while (!cancelled && !completed && demand.get() > 0) {
                        if (position == bytes.length) {
                            completed = true;
                            subscriber.onComplete();
                            break;
                        }
                        int length = Math.min(SLICE, bytes.length - position);
                        ByteBuffer view = ByteBuffer.wrap(bytes, position, length);
                        position += length;
                        demand.decrementAndGet();
                        subscriber.onNext(view);
                    }
                    if (position == bytes.length && !completed && !cancelled) {
                        completed = true;
                        subscriber.onComplete();
                    }
                } finally {
                    emitting.set(false);
                }
                if (cancelled || completed || demand.get() == 0) {
                    return;
                }
            }
        }

        @Override
        public void cancel() {
            cancelled = true;
        }
    }
}

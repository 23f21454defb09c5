package nl.overheid.moz.nmc.testing.noskip;

import io.cloudevents.CloudEvent;
import java.util.UUID;
import nl.overheid.moz.nmc.feed.Feed;
import nl.overheid.moz.nmc.register.Dienstverlener;

/**
 * A DV paging the pull feed: {@link Feed#read} with the opaque cursor of the previous page, exactly as the
 * API does, so the cursor codec and its checks are on the path too.
 */
public final class FeedReader implements Reader {

    private final Feed feed;
    private final Dienstverlener dv;
    private final int limit;
    private String cursor;

    public FeedReader(Feed feed, Dienstverlener dv, int limit) {
        this.feed = feed;
        this.dv = dv;
        this.limit = limit;
    }

    @Override
    public UUID dvId() {
        return dv.id();
    }

    @Override
    public String label() {
        return "feed/limit=" + limit;
    }

    @Override
    public Page next() {
        Feed.Page page = feed.read(dv, cursor, limit);
        cursor = page.cursor();
        return new Page(page.events().stream().map(FeedReader::delivered).toList());
    }

    private static Delivered delivered(CloudEvent event) {
        return new Delivered(
                Long.parseLong(event.getId()),
                UUID.fromString(event.getSubject()),
                Integer.parseInt(String.valueOf(event.getExtension("sequence"))));
    }
}

package android.app;

import android.content.Context;

/** Stand-in for android.app.Notification and its Builder (subset). */
public class Notification {
    public final String channelId;
    public final int icon;
    public final CharSequence title;
    public final CharSequence text;
    public final PendingIntent contentIntent;
    public final boolean ongoing;

    Notification(Builder b) {
        channelId = b.channelId;
        icon = b.icon;
        title = b.title;
        text = b.text;
        contentIntent = b.contentIntent;
        ongoing = b.ongoing;
    }

    public String getChannelId() {
        return channelId;
    }

    public static class Builder {
        private final String channelId;
        private int icon;
        private CharSequence title;
        private CharSequence text;
        private PendingIntent contentIntent;
        private boolean ongoing;

        /** Deprecated in API 26 (no channel). */
        public Builder(Context context) {
            this.channelId = null;
        }

        /** API 26. */
        public Builder(Context context, String channelId) {
            if (android.os.Build.VERSION.SDK_INT < 26) {
                throw new NoSuchMethodError("Notification.Builder(Context, String): API 26");
            }
            this.channelId = channelId;
        }

        public Builder setSmallIcon(int icon) {
            this.icon = icon;
            return this;
        }

        public Builder setContentTitle(CharSequence title) {
            this.title = title;
            return this;
        }

        public Builder setContentText(CharSequence text) {
            this.text = text;
            return this;
        }

        public Builder setContentIntent(PendingIntent intent) {
            this.contentIntent = intent;
            return this;
        }

        public Builder setOngoing(boolean ongoing) {
            this.ongoing = ongoing;
            return this;
        }

        public Notification build() {
            return new Notification(this);
        }
    }
}

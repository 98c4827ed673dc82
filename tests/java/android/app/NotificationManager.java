package android.app;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Stand-in for android.app.NotificationManager (subset): channels (API 26). */
public class NotificationManager {
    public static final int IMPORTANCE_LOW = 2;
    public static final int IMPORTANCE_DEFAULT = 3;

    static final Map<String, NotificationChannel> channels = new ConcurrentHashMap<>();

    public void createNotificationChannel(NotificationChannel channel) {
        if (android.os.Build.VERSION.SDK_INT < 26) {
            throw new NoSuchMethodError("createNotificationChannel: added in API 26");
        }
        channels.put(channel.getId(), channel);
    }

    public NotificationChannel getNotificationChannel(String id) {
        return channels.get(id);
    }
}

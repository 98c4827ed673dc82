package android.app;

/** Stand-in for android.app.NotificationChannel (API 26; subset). */
public final class NotificationChannel {
    private final String id;
    private final CharSequence name;
    private final int importance;

    public NotificationChannel(String id, CharSequence name, int importance) {
        this.id = id;
        this.name = name;
        this.importance = importance;
    }

    public String getId() {
        return id;
    }

    public CharSequence getName() {
        return name;
    }

    public int getImportance() {
        return importance;
    }
}

package android.content;

/**
 * Stand-in for android.content.Context (subset): the type of the first argument of
 * BroadcastReceiver.onReceive(Context, Intent), the system service names, and
 * getContentResolver() (one resolver for the process, as MediaStore is one).
 */
public abstract class Context {
    public static final String BLUETOOTH_SERVICE = "bluetooth";
    public static final String LOCATION_SERVICE = "location";
    public static final String VIBRATOR_SERVICE = "vibrator";

    private static final ContentResolver resolver = new ContentResolver();

    public ContentResolver getContentResolver() {
        return resolver;
    }
}

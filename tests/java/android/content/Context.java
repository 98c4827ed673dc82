package android.content;

/**
 * Stand-in for android.content.Context (subset): the type of the first argument of
 * BroadcastReceiver.onReceive(Context, Intent), the system service names,
 * getContentResolver() (one resolver for the process, as MediaStore is one), and the
 * service calls (played by android.app.AppProcess):
 * <pre>
 *   ComponentName startService(Intent)
 *   ComponentName startForegroundService(Intent)   API 26
 *   boolean stopService(Intent)
 *   Object getSystemService(String)                "location", "vibrator", "notification"
 *   String getPackageName()
 * </pre>
 * (The ComponentName results are returned as Object here: the app does not read them.)
 */
public abstract class Context {
    public static final String BLUETOOTH_SERVICE = "bluetooth";
    public static final String LOCATION_SERVICE = "location";
    public static final String VIBRATOR_SERVICE = "vibrator";
    public static final String NOTIFICATION_SERVICE = "notification";

    private static final ContentResolver resolver = new ContentResolver();

    public ContentResolver getContentResolver() {
        return resolver;
    }

    public String getPackageName() {
        return "org.blu21.blu21";
    }

    public Object getSystemService(String name) {
        return android.bluetooth.Standin.systemService(name);
    }

    public Object startService(Intent service) {
        return android.app.AppProcess.start(service, false);
    }

    public Object startForegroundService(Intent service) {
        if (android.os.Build.VERSION.SDK_INT < 26) {
            throw new NoSuchMethodError("startForegroundService: added in API 26");
        }
        return android.app.AppProcess.start(service, true);
    }

    public boolean stopService(Intent service) {
        return android.app.AppProcess.stop(service.standinClassName());
    }
}

package android.content;

/**
 * Stand-in for android.content.Context (subset): the type of the first argument of
 * BroadcastReceiver.onReceive(Context, Intent). Nothing of it is used by the app.
 */
public abstract class Context {
    public static final String BLUETOOTH_SERVICE = "bluetooth";
}

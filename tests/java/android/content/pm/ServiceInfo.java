package android.content.pm;

/** Stand-in for android.content.pm.ServiceInfo (subset): the foreground service types. */
public class ServiceInfo {
    public static final int FOREGROUND_SERVICE_TYPE_NONE = 0;
    /** API 29; AOSP value 1 << 4. */
    public static final int FOREGROUND_SERVICE_TYPE_CONNECTED_DEVICE = 1 << 4;

    /** The manifest attribute's name for a type (android:foregroundServiceType). */
    public static int standinType(String name) {
        if (name == null || name.isEmpty()) {
            return FOREGROUND_SERVICE_TYPE_NONE;
        }
        if (name.equals("connectedDevice")) {
            return FOREGROUND_SERVICE_TYPE_CONNECTED_DEVICE;
        }
        return 1 << 30;  // a type these stand-ins do not model
    }
}

package android.app;

import android.bluetooth.Standin;
import android.content.Intent;
import android.content.pm.ServiceInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Test control: the system's view of the app's process (ActivityManager). NOT part of the
 * Android API; the app never touches it. Each rule and its Android source: docs/android.md.
 *
 * <p>What the app declared is set from the real build files by the test (declare*): the
 * permissions of buildozer.spec, the service types of recipes/blu21/service's manifest,
 * the target SDK and the back opt-out of the application element.
 *
 * <ul>
 * <li>Services run in the app's process: started on the UI thread (onCreate,
 *     onStartCommand); startForegroundService must be followed by startForeground within
 *     10 s (API 31+; ForegroundServiceDidNotStartInTimeException crashes the app).
 * <li>startForeground: FOREGROUND_SERVICE declared (API 28+); the type a subset of the
 *     manifest's (API 29+), none in the manifest: MissingForegroundServiceTypeException
 *     (API 34+); connectedDevice: FOREGROUND_SERVICE_CONNECTED_DEVICE declared and a
 *     Bluetooth runtime permission granted (API 34+), else SecurityException.
 * <li>From the background a foreground service cannot be started (API 31+:
 *     ForegroundServiceStartNotAllowedException).
 * <li>The notification is shown only with POST_NOTIFICATIONS granted (API 33+); the
 *     service runs either way.
 * <li>The process leaves the screen (home, another app, screen off, or back finishing the
 *     activity): on Android 14+ (API 34) it is frozen 10 s later unless a foreground
 *     service runs; its threads stop (the tests stop stepping its table).
 * <li>Back at targetSdk 36 on Android 16: the key is delivered only when the app opted
 *     out of predictive back (android:enableOnBackInvokedCallback="false"); otherwise the
 *     system finishes the activity: the app leaves the screen.
 * </ul>
 */
public final class AppProcess {
    private AppProcess() {}

    /** Cached apps are frozen this long after they leave the screen (Android 14+; AOSP
     *  CachedAppOptimizer.DEFAULT_FREEZER_DEBOUNCE_TIMEOUT = 10_000L ms). */
    public static final long FREEZE_AFTER_MS = 10_000;
    /** startForegroundService must be answered by startForeground this soon (API 31+). */
    public static final long START_FOREGROUND_WITHIN_MS = 10_000;

    static final Set<String> declared = ConcurrentHashMap.newKeySet();
    static final Map<String, Integer> serviceTypes = new ConcurrentHashMap<>();
    static volatile int targetSdk = 36;
    static volatile boolean backOptOut = false;
    static final Map<String, Service> running = new ConcurrentHashMap<>();
    static final Map<String, Long> startedAt = new ConcurrentHashMap<>();
    static final Set<String> foreground = ConcurrentHashMap.newKeySet();
    static final Map<String, Notification> notifications = new ConcurrentHashMap<>();
    static final List<String> events = new CopyOnWriteArrayList<>();
    static volatile boolean onScreen = true;
    static volatile long leftAt = -1;
    static volatile String crashed = null;

    public static synchronized void reset() {
        declared.clear();
        serviceTypes.clear();
        targetSdk = 36;
        backOptOut = false;
        running.clear();
        startedAt.clear();
        foreground.clear();
        notifications.clear();
        events.clear();
        onScreen = true;
        leftAt = -1;
        crashed = null;
        NotificationManager.channels.clear();
    }

    // -- what the app declared (from the build files) -----------------------------------

    public static void declarePermission(String permission) {
        declared.add(permission);
    }

    /** A service element: class and android:foregroundServiceType ("" for none). */
    public static void declareService(String className, String types) {
        int mask = 0;
        for (String t : types.split("\\|")) {
            mask |= ServiceInfo.standinType(t.trim());
        }
        serviceTypes.put(className, mask);
    }

    public static void declareApplication(int target, boolean optsOutOfPredictiveBack) {
        targetSdk = target;
        backOptOut = optsOutOfPredictiveBack;
    }

    // -- the screen ---------------------------------------------------------------------

    /** Home, another app, the screen turned off: the activity is stopped. */
    public static void leaveScreen() {
        if (onScreen) {
            onScreen = false;
            leftAt = Standin.now();
            events.add("left the screen");
        }
    }

    public static void returnToScreen() {
        onScreen = true;
        leftAt = -1;
        events.add("back on screen");
    }

    public static boolean onScreen() {
        return onScreen;
    }

    /** Is the process frozen now (its threads do not run)? */
    public static boolean frozen() {
        check();
        return android.os.Build.VERSION.SDK_INT >= 34 && !onScreen && foreground.isEmpty()
                && Standin.now() - leftAt >= FREEZE_AFTER_MS;
    }

    /**
     * The player presses back: "key" when the app receives the key (it handles it),
     * "finished" when the system finishes the activity (predictive back at target 36 on
     * Android 16 without the opt-out): the app then leaves the screen.
     */
    public static String pressBack() {
        boolean predictive = android.os.Build.VERSION.SDK_INT >= 36 && targetSdk >= 36 && !backOptOut;
        if (predictive) {
            events.add("back finished the activity");
            leaveScreen();
            return "finished";
        }
        events.add("back key delivered");
        return "key";
    }

    // -- services -----------------------------------------------------------------------

    public static Object start(Intent intent, boolean asForeground) {
        String name = intent.standinClassName();
        if (name == null || !serviceTypes.containsKey(name)) {
            events.add("unknown service " + name);
            return null;  // not declared in the manifest: Android returns null
        }
        if (asForeground && android.os.Build.VERSION.SDK_INT >= 31 && !onScreen) {
            throw new IllegalStateException("android.app.ForegroundServiceStartNotAllowedException: "
                    + "startForegroundService() not allowed due to mAllowStartForeground false");
        }
        if (asForeground && !foreground.contains(name)) {
            startedAt.put(name, Standin.now());
        }
        org.kivy.android.PythonActivity.mActivity.runOnUiThread(() -> {
            try {
                Service service = running.get(name);
                if (service == null) {
                    service = (Service) Class.forName(name).getDeclaredConstructor().newInstance();
                    running.put(name, service);
                    service.onCreate();
                    events.add("created " + name);
                }
                service.onStartCommand(intent, 0, 1);
            } catch (RuntimeException e) {
                crash(e.toString());
            } catch (ReflectiveOperationException e) {
                crash(e.toString());
            }
        });
        return name;
    }

    public static boolean stop(String name) {
        Service service = running.remove(name);
        startedAt.remove(name);
        foreground.remove(name);
        notifications.remove(name);
        if (service == null) {
            return false;
        }
        events.add("destroyed " + name);
        service.onDestroy();
        return true;
    }

    static void startForeground(Service service, int id, Notification notification, int type) {
        String name = service.getClass().getName();
        int sdk = android.os.Build.VERSION.SDK_INT;
        int manifestType = serviceTypes.getOrDefault(name, 0);
        if (sdk >= 28 && !declared.contains("android.permission.FOREGROUND_SERVICE")) {
            throw new SecurityException("Permission Denial: startForeground from pid=1, uid=10000"
                    + " requires android.permission.FOREGROUND_SERVICE");
        }
        int effective = type == -1 ? manifestType : type;
        if (sdk >= 34 && manifestType == 0) {
            throw new IllegalStateException("android.app.MissingForegroundServiceTypeException: "
                    + "Starting FGS without a type callerApp=" + name);
        }
        if (sdk >= 29 && (effective & ~manifestType) != 0) {
            throw new IllegalArgumentException("foregroundServiceType 0x" + Integer.toHexString(effective)
                    + " is not a subset of foregroundServiceType attribute 0x"
                    + Integer.toHexString(manifestType) + " in service element of manifest file");
        }
        if (sdk >= 34 && (effective & ServiceInfo.FOREGROUND_SERVICE_TYPE_CONNECTED_DEVICE) != 0) {
            if (!declared.contains("android.permission.FOREGROUND_SERVICE_CONNECTED_DEVICE")) {
                throw new SecurityException("Starting FGS with type connectedDevice targetSDK=34"
                        + " requires permissions: all of the permissions allOf=true"
                        + " [android.permission.FOREGROUND_SERVICE_CONNECTED_DEVICE]");
            }
            if (!Standin.hasPermission("android.permission.BLUETOOTH_CONNECT")
                    && !Standin.hasPermission("android.permission.BLUETOOTH_ADVERTISE")
                    && !Standin.hasPermission("android.permission.BLUETOOTH_SCAN")) {
                throw new SecurityException("Starting FGS with type connectedDevice requires"
                        + " any of the permissions allOf=false [android.permission.BLUETOOTH_CONNECT, ...]");
            }
        }
        foreground.add(name);
        startedAt.remove(name);
        if (sdk < 33 || Standin.hasPermission("android.permission.POST_NOTIFICATIONS")) {
            notifications.put(name, notification);
        }
        events.add("foreground " + name);
    }

    static void stopForeground(Service service) {
        foreground.remove(service.getClass().getName());
        notifications.remove(service.getClass().getName());
    }

    static void crash(String why) {
        if (crashed == null) {
            crashed = why;
        }
        events.add("crash: " + why);
    }

    /** The foreground deadline (API 31+: 10 s after startForegroundService). */
    static void check() {
        if (android.os.Build.VERSION.SDK_INT < 31) {
            return;
        }
        for (Map.Entry<String, Long> e : new ArrayList<>(startedAt.entrySet())) {
            if (Standin.now() - e.getValue() >= START_FOREGROUND_WITHIN_MS) {
                crash("android.app.ForegroundServiceDidNotStartInTimeException: " + e.getKey());
            }
        }
    }

    // -- what the test observes ---------------------------------------------------------

    public static boolean isForeground(String className) {
        return foreground.contains(className);
    }

    public static boolean isRunning(String className) {
        return running.containsKey(className);
    }

    /** The notification the player sees for the service (null: none shown). */
    public static Notification notification(String className) {
        return notifications.get(className);
    }

    public static String crashed() {
        check();
        return crashed;
    }

    public static String[] events() {
        return events.toArray(new String[0]);
    }
}

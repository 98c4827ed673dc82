package android.bluetooth;

import android.content.Context;
import android.content.Intent;
import android.os.Build;
import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Test control of the Bluetooth stand-ins. NOT part of the Android API: the app never
 * touches this class; tests use it to play the system (adapter present/enabled, granted
 * permissions, paired and nearby devices, API level) and to observe what the app did.
 *
 * <p>The stand-ins carry RFCOMM over loopback TCP: a listening BluetoothServerSocket is a
 * java.net.ServerSocket on 127.0.0.1 registered under (local address, service UUID); a
 * BluetoothSocket.connect() looks that registration up (the "SDP lookup") and connects.
 * With the environment variable BLU21_STANDIN_REGISTRY naming a directory, registrations
 * are also files there, so that several JVMs (several "phones") find each other; the
 * variable BLU21_STANDIN_ADDRESS sets this phone's own address.
 * The connecting side first sends its adapter address and a newline, so that the
 * accepted socket knows its remote device, as on a phone.
 *
 * <p>Like a phone (each behaviour and the Android source it follows: docs/android.md):
 * runtime permissions start ungranted and are asked one request at a time, answered on the
 * UI thread, and refused without a dialog after two refusals; the system dialogs (enable
 * Bluetooth, become discoverable) answer through activity results; discovery takes
 * simulated seconds and finds only discoverable phones, names late or never; a secure
 * connection to an unpaired phone waits for the pairing dialog; a server socket takes at
 * most 7 links; app classes are found only from the main thread. Time is simulated
 * (advance()), so that no test depends on the machine's speed.
 */
public final class Standin {
    private Standin() {}

    /** Same shape as python-for-android's GenericBroadcastReceiverCallback. */
    public interface ReceiverCallback {
        void onReceive(Context context, Intent intent);
    }

    static final String CONNECT = "android.permission.BLUETOOTH_CONNECT";
    static final String SCAN = "android.permission.BLUETOOTH_SCAN";
    static final String ADVERTISE = "android.permission.BLUETOOTH_ADVERTISE";
    static final String FINE_LOCATION = "android.permission.ACCESS_FINE_LOCATION";

    static volatile boolean present = true;
    static volatile boolean enabled = true;
    static volatile String localAddress = "02:00:00:00:00:01";
    static volatile String localName = "Standin phone";
    static volatile int failConnects = 0;
    static volatile int connectDelayMs = 0;
    /** AOSP: an inquiry lasts about 12 s (BluetoothAdapter.startDiscovery). */
    static final long INQUIRY_MS = 12_000;
    /** Found devices arrive one after another during the inquiry, this far apart. */
    static final long FOUND_STEP_MS = 1_500;
    /** Android 11+ (API 30): after two refusals a permission is denied without a dialog. */
    static final int REFUSALS_BEFORE_AUTO_DENY = 2;
    /** One "make visible" request lasts at most this long (seconds). */
    static final int MAX_DISCOVERABLE_S = 300;
    /** The most RFCOMM links one phone's controller holds (about 7, see docs/android.md). */
    static final int MAX_LINKS = 7;

    static final Object clock = new Object();
    static long nowMs = 0;
    static volatile Thread mainThread;
    static volatile boolean locationOn = true;
    static volatile long answerDelayMs = 0;
    static volatile long pairingMs = 8_000;
    static volatile boolean pairingRefused = false;
    static volatile boolean requestInFlight = false;
    static final Map<String, String> answers = new ConcurrentHashMap<>();
    static final Map<String, Integer> refusals = new ConcurrentHashMap<>();
    static final List<String> dialogs = new CopyOnWriteArrayList<>();
    static final Map<String, Integer> links = new ConcurrentHashMap<>();
    static final Set<String> granted = ConcurrentHashMap.newKeySet();
    static final Map<String, BluetoothDevice> devices = new ConcurrentHashMap<>();
    static final Map<String, Boolean> nearby = new LinkedHashMap<>();
    static final Map<String, Integer> services = new ConcurrentHashMap<>();
    static final Set<Closeable> open = ConcurrentHashMap.newKeySet();
    static final List<Object[]> receivers = new CopyOnWriteArrayList<>();
    static final List<String> log = new CopyOnWriteArrayList<>();

    static {
        reset();
    }

    /**
     * Back to a phone with Bluetooth on, API 34, no runtime permission granted, nothing
     * paired or nearby, the user answering "allow" to every dialog. The calling thread
     * becomes the app's main thread (the one that finds app classes).
     */
    public static synchronized void reset() {
        mainThread = Thread.currentThread();
        for (Closeable c : new ArrayList<>(open)) {
            closeQuietly(c);
        }
        open.clear();
        present = true;
        enabled = true;
        String address = System.getenv("BLU21_STANDIN_ADDRESS");
        localAddress = address != null ? address : "02:00:00:00:00:01";
        localName = "Standin phone";
        failConnects = 0;
        connectDelayMs = 0;
        Build.VERSION.SDK_INT = 34;
        granted.clear();
        answers.clear();
        refusals.clear();
        dialogs.clear();
        links.clear();
        requestInFlight = false;
        answerDelayMs = 0;
        pairingMs = 8_000;
        pairingRefused = false;
        locationOn = true;
        synchronized (clock) {
            nowMs = 0;
            clock.notifyAll();
        }
        android.os.Vibrator.standinReset();
        android.app.AppProcess.reset();
        devices.clear();
        synchronized (nearby) {
            nearby.clear();
        }
        for (String key : new ArrayList<>(services.keySet())) {
            unregister(key);
        }
        receivers.clear();
        log.clear();
        BluetoothAdapter.discovering = false;
        org.kivy.android.PythonActivity.standinReset();
    }

    public static void setPresent(boolean value) {
        present = value;
    }

    /** Turning Bluetooth off drops every open RFCOMM socket, as on a phone. */
    public static void setEnabled(boolean value) {
        enabled = value;
        if (!value) {
            for (Closeable c : new ArrayList<>(open)) {
                closeQuietly(c);
            }
        }
    }

    public static void setSdk(int sdk) {
        Build.VERSION.SDK_INT = sdk;
    }

    public static void setLocal(String address, String name) {
        localAddress = address;
        localName = name;
    }

    public static void setPermission(String permission, boolean isGranted) {
        if (isGranted) {
            granted.add(permission);
        } else {
            granted.remove(permission);
        }
    }

    public static boolean hasPermission(String permission) {
        return granted.contains(permission);
    }

    public static void addBonded(String address, String name) {
        device(address, name).bonded = true;
    }

    /** Paired or seen devices are phones unless said otherwise (BluetoothClass.Device.Major). */
    public static void setMajorClass(String address, int major) {
        device(address, null).major = major;
    }

    /** Grant every runtime permission (the user allowed them in an earlier run). */
    public static void grantAll() {
        granted.addAll(Arrays.asList(CONNECT, SCAN, ADVERTISE, FINE_LOCATION));
    }

    /**
     * A phone in radio range. Only a discoverable one answers an inquiry (a phone is
     * discoverable while its Bluetooth settings are open or after it asked to be).
     * nameDelayMs: its name arrives that long after it is found (NAME_CHANGED); a null
     * name never arrives.
     */
    public static void addNearby(String address, String name, boolean discoverable, long nameDelayMs) {
        BluetoothDevice d = device(address, null);
        d.name = nameDelayMs > 0 ? null : name;
        d.lateName = name;
        d.nameDelayMs = nameDelayMs;
        synchronized (nearby) {
            nearby.put(address, discoverable);
        }
    }

    /** A discoverable phone whose name comes with it. */
    public static void addNearby(String address, String name) {
        addNearby(address, name, true, 0);
    }

    /** The system Location switch (Android 10/11 discovery finds nothing while it is off). */
    public static void setLocationOn(boolean on) {
        locationOn = on;
    }

    public static boolean locationOn() {
        return locationOn;
    }

    /**
     * How the user answers a dialog: for a permission name, or for the activity actions
     * ACTION_REQUEST_ENABLE / ACTION_REQUEST_DISCOVERABLE: "allow", "deny" or "dismiss"
     * (the dialog goes away without an answer: empty results / RESULT_CANCELED).
     */
    public static void setAnswer(String what, String answer) {
        answers.put(what, answer);
    }

    /** The user takes this long (simulated) to answer a dialog. */
    public static void setAnswerDelay(long millis) {
        answerDelayMs = millis;
    }

    /** The players take this long (simulated) to confirm the pairing dialog; or refuse it. */
    public static void setPairing(long millis, boolean refused) {
        pairingMs = millis;
        pairingRefused = refused;
    }

    /** Dialogs the user saw, in order: permission names and activity actions. */
    public static String[] dialogs() {
        return dialogs.toArray(new String[0]);
    }

    // -- simulated time -----------------------------------------------------------------

    /** Simulated milliseconds since reset(). */
    public static long now() {
        synchronized (clock) {
            return nowMs;
        }
    }

    /** Let simulated time pass: everything due by then happens (on its own thread). */
    public static void advance(long millis) {
        synchronized (clock) {
            nowMs += millis;
            clock.notifyAll();
        }
    }

    /** Block until simulated time reaches t; false if stop says so first. */
    static boolean waitUntil(long t, java.util.function.BooleanSupplier stop) {
        synchronized (clock) {
            while (nowMs < t) {
                if (stop.getAsBoolean()) {
                    return false;
                }
                try {
                    clock.wait(20);  // wakes on advance(); the timeout only re-checks stop
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return !stop.getAsBoolean();
        }
    }

    static void later(long delayMs, String name, Runnable r) {
        final long due = now() + delayMs;
        Thread t = new Thread(() -> {
            if (waitUntil(due, () -> false)) {
                r.run();
            }
        }, name);
        t.setDaemon(true);
        t.start();
    }

    // -- the app's class loader -----------------------------------------------------------

    /**
     * A Java thread started by native code finds classes through the system class loader,
     * which does not know the app's classes (org.kivy.*): only the main thread does.
     */
    public static void appClass(String name) {
        if (Thread.currentThread() != mainThread) {
            throw new NoClassDefFoundError("Didn't find class \"" + name + "\" on path: "
                    + "DexPathList[[directory \".\"],nativeLibraryDirectories=[/system/lib64]]");
        }
    }

    // -- runtime permissions (Activity.requestPermissions) --------------------------------

    public static boolean checkSelfPermission(String permission) {
        if (android.os.Build.VERSION.SDK_INT < 23) {
            return true;  // install-time grants only
        }
        return granted.contains(permission);
    }

    public static void requestPermissions(String[] permissions, int requestCode) {
        org.kivy.android.PythonActivity activity = org.kivy.android.PythonActivity.mActivity;
        boolean busy;
        synchronized (Standin.class) {
            busy = requestInFlight;
            requestInFlight = true;
        }
        if (busy) {
            // AOSP Activity.requestPermissions: "Can request only one set of permissions
            // at a time": the new request is answered as cancelled, synchronously, on the
            // calling thread, before requestPermissions returns.
            activity.standinPermissionsResultNow(requestCode, new String[0], new int[0]);
            return;
        }
        later(answerDelayMs, "standin-permission-dialog", () -> {
            String[] names = permissions.clone();
            int[] results = new int[names.length];
            boolean dismissed = false;
            for (int i = 0; i < names.length; i++) {
                String p = names[i];
                if (granted.contains(p)) {
                    results[i] = 0;
                    continue;
                }
                int refused = refusals.getOrDefault(p, 0);
                if (android.os.Build.VERSION.SDK_INT >= 30 && refused >= REFUSALS_BEFORE_AUTO_DENY) {
                    results[i] = -1;  // no dialog any more: denied at once
                    continue;
                }
                dialogs.add(p);
                String answer = answers.getOrDefault(p, "allow");
                if (answer.equals("dismiss")) {
                    dismissed = true;
                    break;
                }
                if (answer.equals("allow")) {
                    granted.add(p);
                    results[i] = 0;
                } else {
                    refusals.put(p, refused + 1);
                    results[i] = -1;
                }
            }
            synchronized (Standin.class) {
                requestInFlight = false;
            }
            if (dismissed) {
                activity.standinPermissionsResult(requestCode, new String[0], new int[0]);
            } else {
                activity.standinPermissionsResult(requestCode, names, results);
            }
        });
    }

    // -- system activities (startActivityForResult) ---------------------------------------

    public static void systemActivity(Intent intent, int requestCode) {
        String action = intent.getAction();
        if (action.equals(BluetoothAdapter.ACTION_REQUEST_ENABLE)) {
            require(CONNECT);
        } else if (action.equals(BluetoothAdapter.ACTION_REQUEST_DISCOVERABLE)) {
            require(ADVERTISE);
        } else {
            return;  // other screens (settings) give no result the app waits for
        }
        org.kivy.android.PythonActivity activity = org.kivy.android.PythonActivity.mActivity;
        later(answerDelayMs, "standin-system-dialog", () -> {
            dialogs.add(action);
            String answer = answers.getOrDefault(action, "allow");
            int result = org.kivy.android.PythonActivity.RESULT_CANCELED;
            if (answer.equals("allow") && present) {
                if (action.equals(BluetoothAdapter.ACTION_REQUEST_ENABLE)) {
                    enabled = true;
                    result = org.kivy.android.PythonActivity.RESULT_OK;
                } else {
                    // The result code is the discoverable duration (AOSP
                    // RequestPermissionActivity); turning Bluetooth on comes with it.
                    enabled = true;
                    // At most 300 s per request (ACTION_REQUEST_DISCOVERABLE reference: "The
                    // current default is 120 seconds, and maximum value is capped at 300").
                    result = Math.min(MAX_DISCOVERABLE_S,
                            intent.getIntExtra(BluetoothAdapter.EXTRA_DISCOVERABLE_DURATION, 120));
                    BluetoothAdapter.discoverableUntil = now() + result * 1000L;
                }
            }
            activity.standinActivityResult(requestCode, result);
        });
    }

    public static Object systemService(String name) {
        if (name.equals(Context.LOCATION_SERVICE)) {
            return new android.location.LocationManager();
        }
        if (name.equals(Context.VIBRATOR_SERVICE)) {
            return new android.os.Vibrator();
        }
        if (name.equals(Context.NOTIFICATION_SERVICE)) {
            return new android.app.NotificationManager();
        }
        return null;
    }

    /** The next n connect() calls fail like a flaky radio. */
    public static void failNextConnects(int n) {
        failConnects = n;
    }

    /** connect() takes this long (simulated) before it reaches the host (close() aborts it). */
    public static void setConnectDelay(int millis) {
        connectDelayMs = millis;
    }

    /** Open sockets (connected and listening). */
    public static int openSockets() {
        return open.size();
    }

    /** What the app did, in order: "listen", "connect", "cancelDiscovery", ... */
    public static String[] log() {
        return log.toArray(new String[0]);
    }

    /** Registration of a python-for-android style broadcast receiver (see tests). */
    public static void registerReceiver(ReceiverCallback callback, String[] actions) {
        appClass("org.kivy.android.GenericBroadcastReceiver");  // p4a creates one per receiver
        receivers.add(new Object[] {callback, new HashSet<>(Arrays.asList(actions))});
    }

    public static void unregisterReceiver(ReceiverCallback callback) {
        receivers.removeIf(r -> r[0] == callback);
    }

    public static int receiverCount() {
        return receivers.size();
    }

    // -- used by the stand-ins ----------------------------------------------------------

    static void require(String permission) {
        if (Build.VERSION.SDK_INT >= 31 && !granted.contains(permission)) {
            throw new SecurityException(
                    "Need " + permission + " permission for AttributionSource { uid = 10000 }");
        }
    }

    static synchronized BluetoothDevice device(String address, String name) {
        BluetoothDevice d = devices.get(address);
        if (d == null) {
            d = new BluetoothDevice(address, name);
            devices.put(address, d);
        } else if (name != null) {
            d.name = name;
        }
        return d;
    }

    /** The nearby phones that answer an inquiry now. */
    static List<BluetoothDevice> discoverableDevices() {
        List<BluetoothDevice> result = new ArrayList<>();
        synchronized (nearby) {
            for (Map.Entry<String, Boolean> e : nearby.entrySet()) {
                if (e.getValue()) {
                    result.add(devices.get(e.getKey()));
                }
            }
        }
        return result;
    }

    /** A link to the service under key opens: refused when the host holds MAX_LINKS. */
    static synchronized boolean openLink(String key) {
        int n = links.getOrDefault(key, 0);
        if (n >= MAX_LINKS) {
            return false;
        }
        links.put(key, n + 1);
        return true;
    }

    static synchronized void closeLink(String key) {
        links.computeIfPresent(key, (k, n) -> n > 1 ? n - 1 : null);
    }

    static boolean takeConnectFailure() {
        synchronized (Standin.class) {
            if (failConnects > 0) {
                failConnects--;
                return true;
            }
            return false;
        }
    }

    static String key(String address, UUID uuid) {
        return address.toUpperCase() + "|" + uuid;
    }

    private static Path registryFile(String key) {
        String dir = System.getenv("BLU21_STANDIN_REGISTRY");
        return dir == null ? null : Paths.get(dir, key.replace(':', '-').replace('|', '_') + ".port");
    }

    static void register(String key, int port) throws IOException {
        services.put(key, port);
        Path file = registryFile(key);
        if (file != null) {
            Path tmp = Paths.get(file + ".tmp");
            Files.write(tmp, Integer.toString(port).getBytes(StandardCharsets.US_ASCII));
            Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        }
    }

    static void unregister(String key) {
        services.remove(key);
        Path file = registryFile(key);
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                // gone anyway
            }
        }
    }

    static Integer lookup(String key) {
        Integer port = services.get(key);
        Path file = registryFile(key);
        if (port == null && file != null && Files.exists(file)) {
            try {
                port = Integer.valueOf(new String(Files.readAllBytes(file), StandardCharsets.US_ASCII));
            } catch (IOException | NumberFormatException e) {
                port = null;
            }
        }
        return port;
    }

    static void broadcast(Intent intent) {
        for (Object[] r : receivers) {
            @SuppressWarnings("unchecked")
            Set<String> actions = (Set<String>) r[1];
            if (actions.contains(intent.getAction())) {
                ((ReceiverCallback) r[0]).onReceive(null, intent);
            }
        }
    }

    static void closeQuietly(Closeable c) {
        try {
            c.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}

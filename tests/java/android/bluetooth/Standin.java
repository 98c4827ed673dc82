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
    static volatile long discoveryStepMs = 20;
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

    /** Back to a phone with Bluetooth on, every permission granted, API 34, nothing paired. */
    public static synchronized void reset() {
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
        granted.addAll(Arrays.asList(CONNECT, SCAN, ADVERTISE, FINE_LOCATION));
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

    public static void addNearby(String address, String name) {
        device(address, name);
        synchronized (nearby) {
            nearby.put(address, Boolean.TRUE);
        }
    }

    /** The next n connect() calls fail like a flaky radio. */
    public static void failNextConnects(int n) {
        failConnects = n;
    }

    /** connect() takes this long before it reaches the host (close() aborts it). */
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

    static List<BluetoothDevice> nearbyDevices() {
        List<BluetoothDevice> result = new ArrayList<>();
        synchronized (nearby) {
            for (String address : nearby.keySet()) {
                result.add(devices.get(address));
            }
        }
        return result;
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

package android.bluetooth;

import android.content.Intent;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;

/**
 * Stand-in for android.bluetooth.BluetoothAdapter, backed by loopback TCP (see Standin).
 *
 * <p>Members, as in the public Android API (developer.android.com/reference/android/bluetooth/
 * BluetoothAdapter), with the permission each needs from API 31 on:
 * <pre>
 *   static final String ACTION_DISCOVERY_STARTED, ACTION_DISCOVERY_FINISHED, ACTION_STATE_CHANGED
 *   static final String ACTION_REQUEST_ENABLE            (activity action; BLUETOOTH_CONNECT)
 *   static final String ACTION_REQUEST_DISCOVERABLE      (activity action; BLUETOOTH_ADVERTISE)
 *   static final String EXTRA_DISCOVERABLE_DURATION      (int seconds)
 *   static final int STATE_OFF = 10, STATE_TURNING_ON = 11, STATE_ON = 12, STATE_TURNING_OFF = 13
 *   static BluetoothAdapter getDefaultAdapter()       null without Bluetooth (deprecated in 31)
 *   static boolean checkBluetoothAddress(String)      upper-case "00:11:22:AA:BB:CC" only
 *   boolean isEnabled()
 *   int getState()
 *   String getName()                                  BLUETOOTH_CONNECT
 *   Set&lt;BluetoothDevice&gt; getBondedDevices()     BLUETOOTH_CONNECT; empty set when off
 *   BluetoothDevice getRemoteDevice(String)           IllegalArgumentException if malformed
 *   boolean startDiscovery()                          BLUETOOTH_SCAN (location below 31)
 *       false on API 29-30 without ACCESS_FINE_LOCATION or with the Location switch off
 *       (AOSP AdapterService.startDiscovery, for a targetSdk >= 29 app (Utils.isQApp):
 *       Utils.checkCallerHasFineLocation, which first refuses when
 *       Utils.blockedByLocationOff: "Location is off"); true but finding nothing on API 23-28 without a
 *       location grant; ~12 s; finds only discoverable phones
 *   boolean cancelDiscovery()                         BLUETOOTH_SCAN (31+; BLUETOOTH_ADMIN below)
 *   int getScanMode()                                 BLUETOOTH_SCAN
 *   boolean isDiscovering()                           BLUETOOTH_SCAN
 *   BluetoothServerSocket listenUsingRfcommWithServiceRecord(String, UUID)          BLUETOOTH_CONNECT
 *   BluetoothServerSocket listenUsingInsecureRfcommWithServiceRecord(String, UUID)  BLUETOOTH_CONNECT
 * </pre>
 */
public final class BluetoothAdapter {
    public static final String ACTION_DISCOVERY_STARTED =
            "android.bluetooth.adapter.action.DISCOVERY_STARTED";
    public static final String ACTION_DISCOVERY_FINISHED =
            "android.bluetooth.adapter.action.DISCOVERY_FINISHED";
    public static final String ACTION_STATE_CHANGED =
            "android.bluetooth.adapter.action.STATE_CHANGED";
    public static final String ACTION_REQUEST_ENABLE =
            "android.bluetooth.adapter.action.REQUEST_ENABLE";
    public static final String ACTION_REQUEST_DISCOVERABLE =
            "android.bluetooth.adapter.action.REQUEST_DISCOVERABLE";
    public static final String EXTRA_DISCOVERABLE_DURATION =
            "android.bluetooth.adapter.extra.DISCOVERABLE_DURATION";
    public static final int STATE_OFF = 10;
    public static final int STATE_TURNING_ON = 11;
    public static final int STATE_ON = 12;
    public static final int STATE_TURNING_OFF = 13;

    private static final BluetoothAdapter INSTANCE = new BluetoothAdapter();
    public static final int SCAN_MODE_NONE = 20;
    public static final int SCAN_MODE_CONNECTABLE = 21;
    public static final int SCAN_MODE_CONNECTABLE_DISCOVERABLE = 23;

    static volatile boolean discovering = false;
    static volatile long discoveryGeneration = 0;
    static volatile long discoverableUntil = -1;

    private BluetoothAdapter() {}

    public static synchronized BluetoothAdapter getDefaultAdapter() {
        return Standin.present ? INSTANCE : null;
    }

    public static boolean checkBluetoothAddress(String address) {
        return address != null && address.matches("[0-9A-F]{2}(:[0-9A-F]{2}){5}");
    }

    public boolean isEnabled() {
        return Standin.enabled;
    }

    public int getState() {
        return Standin.enabled ? STATE_ON : STATE_OFF;
    }

    public String getName() {
        Standin.require(Standin.CONNECT);
        return Standin.localName;
    }

    public Set<BluetoothDevice> getBondedDevices() {
        Standin.require(Standin.CONNECT);
        Set<BluetoothDevice> result = new HashSet<>();
        if (!Standin.enabled) {
            return result;
        }
        for (BluetoothDevice d : Standin.devices.values()) {
            if (d.bonded) {
                result.add(d);
            }
        }
        return result;
    }

    public BluetoothDevice getRemoteDevice(String address) {
        if (!checkBluetoothAddress(address)) {
            throw new IllegalArgumentException(address + " is not a valid Bluetooth address");
        }
        return Standin.device(address, null);
    }

    public boolean startDiscovery() {
        Standin.require(Standin.SCAN);
        if (!Standin.enabled) {
            return false;
        }
        final int sdk = android.os.Build.VERSION.SDK_INT;
        if ((sdk == 29 || sdk == 30)
                && (!Standin.granted.contains(Standin.FINE_LOCATION) || !Standin.locationOn())) {
            return false;  // Android 10/11: the caller's fine location is checked, switch too
        }
        Standin.log.add("startDiscovery");
        final long generation = ++discoveryGeneration;
        discovering = true;
        // API 23-28: an inquiry without location permission starts but finds nothing.
        final boolean sees = sdk >= 29 || Standin.granted.contains(Standin.FINE_LOCATION);
        final long start = Standin.now();
        Thread inquiry = new Thread(() -> {
            java.util.function.BooleanSupplier stopped =
                    () -> !discovering || discoveryGeneration != generation;
            long at = start;
            for (BluetoothDevice d : Standin.discoverableDevices()) {
                at += Standin.FOUND_STEP_MS;
                if (!Standin.waitUntil(at, stopped)) {
                    return;
                }
                if (sees) {
                    Intent found = new Intent(BluetoothDevice.ACTION_FOUND);
                    found.putExtra(BluetoothDevice.EXTRA_DEVICE, d);
                    if (d.name != null) {
                        found.putExtra(BluetoothDevice.EXTRA_NAME, d.name);  // "if available"
                    }
                    Standin.broadcast(found);
                    d.nameArrives();
                }
            }
            if (!Standin.waitUntil(start + Standin.INQUIRY_MS, stopped)) {
                return;
            }
            discovering = false;
            Standin.broadcast(new Intent(ACTION_DISCOVERY_FINISHED));
        }, "standin-inquiry");
        inquiry.setDaemon(true);
        inquiry.start();
        return true;
    }

    public boolean cancelDiscovery() {
        Standin.require(Standin.SCAN);  // API 31+; below, BLUETOOTH_ADMIN (install-time)
        if (!Standin.enabled) {
            return false;
        }
        Standin.log.add("cancelDiscovery");
        if (discovering) {
            discovering = false;
            Standin.broadcast(new Intent(ACTION_DISCOVERY_FINISHED));
        }
        return true;
    }

    /** SCAN_MODE_CONNECTABLE_DISCOVERABLE while the user's "visible" time runs. */
    public int getScanMode() {
        Standin.require(Standin.SCAN);
        if (!Standin.enabled) {
            return SCAN_MODE_NONE;
        }
        return Standin.now() < discoverableUntil ? SCAN_MODE_CONNECTABLE_DISCOVERABLE
                : SCAN_MODE_CONNECTABLE;
    }

    public boolean isDiscovering() {
        Standin.require(Standin.SCAN);
        return discovering;
    }

    public BluetoothServerSocket listenUsingRfcommWithServiceRecord(String name, UUID uuid)
            throws IOException {
        return listen(name, uuid, "listen");
    }

    public BluetoothServerSocket listenUsingInsecureRfcommWithServiceRecord(String name, UUID uuid)
            throws IOException {
        return listen(name, uuid, "listenInsecure");
    }

    private BluetoothServerSocket listen(String name, UUID uuid, String what) throws IOException {
        Standin.require(Standin.CONNECT);
        if (!Standin.enabled) {
            throw new IOException("Error: Bluetooth is off; cannot register SDP record " + name);
        }
        String key = Standin.key(Standin.localAddress, uuid);
        if (Standin.lookup(key) != null) {
            throw new IOException("Error: service " + uuid + " is already registered");
        }
        ServerSocket server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
        BluetoothServerSocket socket = new BluetoothServerSocket(server, key);
        Standin.register(key, server.getLocalPort());
        Standin.open.add(socket);
        Standin.log.add(what);
        return socket;
    }
}

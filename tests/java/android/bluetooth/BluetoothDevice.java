package android.bluetooth;

import android.content.Intent;
import android.os.Parcelable;
import java.io.IOException;
import java.util.UUID;

/**
 * Stand-in for android.bluetooth.BluetoothDevice (see Standin).
 *
 * <p>Members, as in the public Android API (developer.android.com/reference/android/bluetooth/
 * BluetoothDevice), with the permission each needs from API 31 on:
 * <pre>
 *   class BluetoothDevice implements Parcelable
 *   static final String ACTION_FOUND = "android.bluetooth.device.action.FOUND"
 *   static final String EXTRA_DEVICE = "android.bluetooth.device.extra.DEVICE"
 *   static final String EXTRA_NAME   = "android.bluetooth.device.extra.NAME"
 *   static final int BOND_NONE = 10, BOND_BONDING = 11, BOND_BONDED = 12
 *   String getAddress()
 *   static final String ACTION_NAME_CHANGED, ACTION_BOND_STATE_CHANGED, EXTRA_BOND_STATE
 *   String getName()                                                BLUETOOTH_CONNECT; null
 *       until the remote name is known (it may come after ACTION_FOUND, or never)
 *   int getBondState()                                              BLUETOOTH_CONNECT
 *   BluetoothClass getBluetoothClass()                              BLUETOOTH_CONNECT
 *   BluetoothSocket createRfcommSocketToServiceRecord(UUID)         BLUETOOTH_CONNECT
 *   BluetoothSocket createInsecureRfcommSocketToServiceRecord(UUID) BLUETOOTH_CONNECT
 * </pre>
 */
public final class BluetoothDevice implements Parcelable {
    public static final String ACTION_FOUND = "android.bluetooth.device.action.FOUND";
    public static final String EXTRA_DEVICE = "android.bluetooth.device.extra.DEVICE";
    public static final String EXTRA_NAME = "android.bluetooth.device.extra.NAME";
    public static final String ACTION_NAME_CHANGED = "android.bluetooth.device.action.NAME_CHANGED";
    public static final String ACTION_BOND_STATE_CHANGED =
            "android.bluetooth.device.action.BOND_STATE_CHANGED";
    public static final String EXTRA_BOND_STATE = "android.bluetooth.device.extra.BOND_STATE";
    public static final int BOND_NONE = 10;
    public static final int BOND_BONDING = 11;
    public static final int BOND_BONDED = 12;

    private final String address;
    volatile String name;
    volatile boolean bonded;
    volatile boolean bonding;
    volatile String lateName;
    volatile long nameDelayMs;
    volatile int major = BluetoothClass.Device.Major.PHONE;

    BluetoothDevice(String address, String name) {
        this.address = address;
        this.name = name;
    }

    public String getAddress() {
        return address;
    }

    public String getName() {
        Standin.require(Standin.CONNECT);
        return name;
    }

    public int getBondState() {
        Standin.require(Standin.CONNECT);
        return bonded ? BOND_BONDED : bonding ? BOND_BONDING : BOND_NONE;
    }

    /** A name that comes after the device was found arrives later, by NAME_CHANGED. */
    void nameArrives() {
        if (name != null || lateName == null) {
            return;
        }
        Standin.later(nameDelayMs, "standin-name", () -> {
            name = lateName;
            Intent changed = new Intent(ACTION_NAME_CHANGED);
            changed.putExtra(EXTRA_DEVICE, this);
            changed.putExtra(EXTRA_NAME, lateName);
            Standin.broadcast(changed);
        });
    }

    void bondState(int state) {
        bonding = state == BOND_BONDING;
        bonded = state == BOND_BONDED;
        Intent changed = new Intent(ACTION_BOND_STATE_CHANGED);
        changed.putExtra(EXTRA_DEVICE, this);
        changed.putExtra(EXTRA_BOND_STATE, state);
        Standin.broadcast(changed);
    }

    public BluetoothClass getBluetoothClass() {
        Standin.require(Standin.CONNECT);
        return new BluetoothClass(major);
    }

    public BluetoothSocket createRfcommSocketToServiceRecord(UUID uuid) throws IOException {
        return create(uuid, true);
    }

    public BluetoothSocket createInsecureRfcommSocketToServiceRecord(UUID uuid)
            throws IOException {
        return create(uuid, false);
    }

    private BluetoothSocket create(UUID uuid, boolean secure) throws IOException {
        Standin.require(Standin.CONNECT);
        if (!Standin.enabled) {
            throw new IOException("Bluetooth is off");
        }
        return new BluetoothSocket(this, uuid, secure);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof BluetoothDevice
                && ((BluetoothDevice) other).address.equals(address);
    }

    @Override
    public int hashCode() {
        return address.hashCode();
    }

    @Override
    public String toString() {
        return address;
    }
}

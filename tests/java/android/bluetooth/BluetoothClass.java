package android.bluetooth;

/**
 * Stand-in for android.bluetooth.BluetoothClass (subset):
 *   int getMajorDeviceClass()
 *   static class Device.Major { MISC = 0x0000, COMPUTER = 0x0100, PHONE = 0x0200,
 *       AUDIO_VIDEO = 0x0400, PERIPHERAL = 0x0500, WEARABLE = 0x0700, UNCATEGORIZED = 0x1F00 ... }
 */
public final class BluetoothClass {
    public static class Device {
        public static class Major {
            public static final int MISC = 0x0000;
            public static final int COMPUTER = 0x0100;
            public static final int PHONE = 0x0200;
            public static final int NETWORKING = 0x0300;
            public static final int AUDIO_VIDEO = 0x0400;
            public static final int PERIPHERAL = 0x0500;
            public static final int IMAGING = 0x0600;
            public static final int WEARABLE = 0x0700;
            public static final int TOY = 0x0800;
            public static final int HEALTH = 0x0900;
            public static final int UNCATEGORIZED = 0x1F00;
        }
    }

    private final int major;

    BluetoothClass(int major) {
        this.major = major;
    }

    public int getMajorDeviceClass() {
        return major;
    }
}

package android.bluetooth;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * Stand-in for android.bluetooth.BluetoothSocket over loopback TCP (see Standin).
 *
 * <p>Members, as in the public Android API (developer.android.com/reference/android/bluetooth/
 * BluetoothSocket):
 * <pre>
 *   class BluetoothSocket implements Closeable
 *   static final int TYPE_RFCOMM = 1
 *   void connect() throws IOException            blocking; close() from another thread aborts it;
 *       secure and unpaired: waits for the pairing dialog (BOND_BONDING), fails if refused;
 *       fails when the host already holds 7 links
 *   boolean isConnected()
 *   BluetoothDevice getRemoteDevice()
 *   InputStream getInputStream() throws IOException   read() throws at the end of stream
 *   OutputStream getOutputStream() throws IOException
 *   int getConnectionType()
 *   void close() throws IOException               also aborts blocked reads and writes
 * </pre>
 */
public final class BluetoothSocket implements Closeable {
    public static final int TYPE_RFCOMM = 1;

    private final BluetoothDevice device;
    private final UUID uuid;
    private final boolean secure;
    private volatile Socket socket;
    private volatile boolean closed;
    private volatile String linkKey;

    BluetoothSocket(BluetoothDevice device, UUID uuid, boolean secure) {
        this.device = device;
        this.uuid = uuid;
        this.secure = secure;
    }

    BluetoothSocket(Socket accepted, BluetoothDevice remote) {
        this.device = remote;
        this.uuid = null;
        this.secure = true;
        this.socket = accepted;
        Standin.open.add(this);
    }

    public void connect() throws IOException {
        Standin.require(Standin.CONNECT);
        long start = Standin.now();  // before the log entry tests wait for
        Standin.log.add("connect");
        if (closed) {
            throw new IOException("socket closed");
        }
        if (!Standin.enabled) {
            throw new IOException("Bluetooth is off");
        }
        if (Standin.takeConnectFailure()) {
            throw new IOException("read failed, socket might closed or timeout, read ret: -1");
        }
        if (!Standin.waitUntil(start + Standin.connectDelayMs, () -> closed)) {
            throw new IOException("socket closed");
        }
        Integer port = Standin.lookup(Standin.key(device.getAddress(), uuid));
        if (port == null) {
            throw new IOException("Service discovery failed");
        }
        if (secure && !device.bonded) {
            pair();  // the link exists (SDP answered); RFCOMM security asks for pairing
        } else if (!secure && !device.bonded) {
            consent();  // unauthenticated: Just Works, a yes/no on this phone only
        }
        String key = Standin.key(device.getAddress(), uuid);
        if (!Standin.openLink(key)) {
            // The host's controller holds no more links: the page is not answered.
            throw new IOException("read failed, socket might closed or timeout, read ret: -1");
        }
        linkKey = key;
        Socket s = new Socket();
        synchronized (this) {
            if (closed) {
                throw new IOException("socket closed");
            }
            socket = s;
        }
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
        s.setTcpNoDelay(true);
        s.getOutputStream().write((Standin.localAddress + "\n").getBytes(StandardCharsets.US_ASCII));
        Standin.open.add(this);
    }

    /**
     * A secure link to an unpaired phone: both phones show the pairing dialog and connect()
     * blocks until the players confirm it (Standin.setPairing: how long, or refused).
     */
    private void pair() throws IOException {
        long until = Standin.now() + Standin.pairingMs;
        device.bondState(BluetoothDevice.BOND_BONDING);
        Standin.log.add("pairing");  // last: a test that sees it may let time pass
        if (!Standin.waitUntil(until, () -> closed)) {
            device.bondState(BluetoothDevice.BOND_NONE);
            throw new IOException("socket closed");
        }
        if (Standin.pairingRefused) {
            device.bondState(BluetoothDevice.BOND_NONE);
            throw new IOException("read failed, socket might closed or timeout, read ret: -1");
        }
        device.bondState(BluetoothDevice.BOND_BONDED);
    }

    /**
     * An insecure link to an unpaired phone: Secure Simple Pairing's Just Works, no bond
     * kept. AOSP btif_dm_ssp_cfm_req_evt accepts it by itself on the phone that is
     * connected to ("Auto-accept JustWorks pairing for temporary incoming"); on the phone
     * that connects it asks the user's consent (BT_SSP_VARIANT_CONSENT, a yes/no without
     * a number). Afterwards the phones are not paired (a temporary bond).
     */
    private void consent() throws IOException {
        long until = Standin.now() + Standin.pairingMs;
        device.bondState(BluetoothDevice.BOND_BONDING);
        Standin.log.add("consent");  // last: a test that sees it may let time pass
        boolean waited = Standin.waitUntil(until, () -> closed);
        device.bondState(BluetoothDevice.BOND_NONE);
        if (!waited) {
            throw new IOException("socket closed");
        }
        if (Standin.pairingRefused) {
            throw new IOException("read failed, socket might closed or timeout, read ret: -1");
        }
    }

    public boolean isConnected() {
        Socket s = socket;
        return s != null && s.isConnected() && !closed;
    }

    public BluetoothDevice getRemoteDevice() {
        return device;
    }

    public InputStream getInputStream() throws IOException {
        Socket s = socket;
        if (s == null) {
            throw new IOException("socket not connected");
        }
        return new EndThrows(s.getInputStream());
    }

    /**
     * AOSP BluetoothSocket.read(): "if (ret < 0) throw new IOException("bt socket closed,
     * read return: " + ret)": the stream never returns -1, it throws at the end.
     */
    private static final class EndThrows extends InputStream {
        private final InputStream in;

        EndThrows(InputStream in) {
            this.in = in;
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            if (b < 0) {
                throw new IOException("bt socket closed, read return: -1");
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n;
            try {
                n = in.read(b, off, len);
            } catch (java.net.SocketException e) {
                n = -1;  // closed under a blocked read: the same message on a phone
            }
            if (n < 0) {
                throw new IOException("bt socket closed, read return: -1");
            }
            return n;
        }

        @Override
        public int available() throws IOException {
            return in.available();
        }
    }

    public OutputStream getOutputStream() throws IOException {
        Socket s = socket;
        if (s == null) {
            throw new IOException("socket not connected");
        }
        return s.getOutputStream();
    }

    public int getConnectionType() {
        return TYPE_RFCOMM;
    }

    @Override
    public synchronized void close() throws IOException {
        if (!closed && linkKey != null) {
            Standin.closeLink(linkKey);
        }
        closed = true;
        Standin.open.remove(this);
        if (socket != null) {
            socket.close();
        }
    }
}

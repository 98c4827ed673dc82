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
 *   void connect() throws IOException            blocking; close() from another thread aborts it
 *   boolean isConnected()
 *   BluetoothDevice getRemoteDevice()
 *   InputStream getInputStream() throws IOException
 *   OutputStream getOutputStream() throws IOException
 *   int getConnectionType()
 *   void close() throws IOException               also aborts blocked reads and writes
 * </pre>
 */
public final class BluetoothSocket implements Closeable {
    public static final int TYPE_RFCOMM = 1;

    private final BluetoothDevice device;
    private final UUID uuid;
    private volatile Socket socket;
    private volatile boolean closed;

    BluetoothSocket(BluetoothDevice device, UUID uuid, boolean secure) {
        this.device = device;
        this.uuid = uuid;
    }

    BluetoothSocket(Socket accepted, BluetoothDevice remote) {
        this.device = remote;
        this.uuid = null;
        this.socket = accepted;
        Standin.open.add(this);
    }

    public void connect() throws IOException {
        Standin.require(Standin.CONNECT);
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
        for (int waited = 0; waited < Standin.connectDelayMs; waited += 10) {
            if (closed) {
                throw new IOException("socket closed");
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                throw new IOException("interrupted");
            }
        }
        Integer port = Standin.lookup(Standin.key(device.getAddress(), uuid));
        if (port == null) {
            throw new IOException("Service discovery failed");
        }
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
        return s.getInputStream();
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
        closed = true;
        Standin.open.remove(this);
        if (socket != null) {
            socket.close();
        }
    }
}

package android.bluetooth;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * Stand-in for android.bluetooth.BluetoothServerSocket over loopback TCP (see Standin).
 *
 * <p>Members, as in the public Android API (developer.android.com/reference/android/bluetooth/
 * BluetoothServerSocket):
 * <pre>
 *   class BluetoothServerSocket implements Closeable
 *   BluetoothSocket accept() throws IOException               blocks; close() aborts it
 *   BluetoothSocket accept(int timeout) throws IOException    IOException on timeout
 *   void close() throws IOException
 * </pre>
 */
public final class BluetoothServerSocket implements Closeable {
    private final ServerSocket server;
    private final String key;

    BluetoothServerSocket(ServerSocket server, String key) {
        this.server = server;
        this.key = key;
    }

    public BluetoothSocket accept() throws IOException {
        return accept(-1);
    }

    public BluetoothSocket accept(int timeout) throws IOException {
        server.setSoTimeout(timeout < 0 ? 0 : timeout);
        Socket s = server.accept();
        try {
            s.setSoTimeout(5000);
            s.setTcpNoDelay(true);
            String address = readLine(s.getInputStream());
            s.setSoTimeout(0);
            return new BluetoothSocket(s, Standin.device(address, null));
        } catch (IOException e) {
            s.close();
            throw e;
        }
    }

    @Override
    public void close() throws IOException {
        Standin.unregister(key);
        Standin.open.remove(this);
        server.close();
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < 64; i++) {
            int c = in.read();
            if (c < 0) {
                throw new IOException("connection dropped during set-up");
            }
            if (c == '\n') {
                return line.toString();
            }
            line.append((char) c);
        }
        throw new IOException("bad set-up line");
    }
}

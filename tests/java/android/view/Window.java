package android.view;

/**
 * Stand-in for android.view.Window (subset, public API signatures):
 *   void addFlags(int flags)
 *   void clearFlags(int flags)
 * The test hook standinFlags() is not part of any real API.
 */
public class Window {
    private volatile int flags;

    public synchronized void addFlags(int flags) {
        this.flags |= flags;
    }

    public synchronized void clearFlags(int flags) {
        this.flags &= ~flags;
    }

    public int standinFlags() {
        return flags;
    }
}

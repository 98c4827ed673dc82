package android.view;

import org.kivy.android.PythonActivity;

/**
 * Stand-in for android.view.Window (subset, public API signatures):
 *   void addFlags(int flags)      UI thread only
 *   void clearFlags(int flags)    UI thread only
 * On a phone both end in ViewRootImpl.checkThread(), which throws
 * CalledFromWrongThreadException off the thread that created the views (the UI thread).
 * The test hooks standin* are not part of any real API.
 */
public class Window {
    private volatile int flags;
    private volatile int wrongThread;

    public synchronized void addFlags(int flags) {
        checkThread();
        this.flags |= flags;
    }

    public synchronized void clearFlags(int flags) {
        checkThread();
        this.flags &= ~flags;
    }

    private void checkThread() {
        if (!PythonActivity.onUiThread()) {
            wrongThread++;
            throw new ViewRootImpl.CalledFromWrongThreadException(
                    "Only the original thread that created a view hierarchy can touch its views.");
        }
    }

    public int standinFlags() {
        return flags;
    }

    /** How often a flag was changed off the UI thread (and refused). */
    public int standinWrongThread() {
        return wrongThread;
    }

    public synchronized void standinReset() {
        flags = 0;
        wrongThread = 0;
    }
}

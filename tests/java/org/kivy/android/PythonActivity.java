package org.kivy.android;

import android.bluetooth.Standin;
import android.content.Context;
import android.content.Intent;
import android.view.Window;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Stand-in for python-for-android's org.kivy.android.PythonActivity (subset), with the
 * Activity behaviour it inherits on a phone:
 * <pre>
 *   static PythonActivity mActivity
 *   void runOnUiThread(Runnable)                    runs now on the UI thread, else posts there
 *   void startActivity(Intent)
 *   void startActivityForResult(Intent, int)        system dialogs (enable, discoverable)
 *   void registerActivityResultListener(ActivityResultListener)     (p4a)
 *   void unregisterActivityResultListener(ActivityResultListener)   (p4a)
 *   void addPermissionsCallback(PermissionsCallback)                (p4a)
 *   boolean checkCurrentPermission(String)                          (p4a)
 *   void requestPermissions(String[])                               (p4a)
 *   void requestPermissionsWithRequestCode(String[], int)           (p4a)
 *   Object getSystemService(String)                 "location", "vibrator"
 *   Window getWindow()
 *   String getPackageName()
 * </pre>
 * How the system answers (the user's choices, one request at a time, no dialog after two
 * refusals) is played by android.bluetooth.Standin; see docs/android.md for the Android
 * sources each behaviour follows. The standin* methods are test hooks, not API.
 */
public class PythonActivity extends Context {
    public static PythonActivity mActivity = new PythonActivity();

    /** Activity.RESULT_OK / RESULT_CANCELED. */
    public static final int RESULT_OK = -1;
    public static final int RESULT_CANCELED = 0;

    public interface PermissionsCallback {
        void onRequestPermissionsResult(int requestCode, String[] permissions, int[] grantResults);
    }

    public interface ActivityResultListener {
        void onActivityResult(int requestCode, int resultCode, Intent data);
    }

    private static final List<Intent> started = new CopyOnWriteArrayList<>();
    private static volatile Thread uiThread;
    private static final ExecutorService ui = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "standin-ui");
        t.setDaemon(true);
        uiThread = t;
        return t;
    });
    private final Window window = new Window();
    private final List<PermissionsCallback> permissionCallbacks = new CopyOnWriteArrayList<>();
    private final List<ActivityResultListener> resultListeners = new CopyOnWriteArrayList<>();

    /** True on the activity's UI thread (Looper.getMainLooper().isCurrentThread()). */
    public static boolean onUiThread() {
        return Thread.currentThread() == uiThread;
    }

    public Window getWindow() {
        return window;
    }

    public void runOnUiThread(Runnable action) {
        if (onUiThread()) {
            action.run();
        } else {
            ui.execute(action);
        }
    }

    public void startActivity(Intent intent) {
        started.add(intent);
    }

    public void startActivityForResult(Intent intent, int requestCode) {
        started.add(intent);
        Standin.systemActivity(intent, requestCode);
    }

    public void registerActivityResultListener(ActivityResultListener listener) {
        Standin.appClass("org.kivy.android.PythonActivity$ActivityResultListener");
        resultListeners.add(listener);
    }

    public void unregisterActivityResultListener(ActivityResultListener listener) {
        resultListeners.remove(listener);
    }

    public void addPermissionsCallback(PermissionsCallback callback) {
        Standin.appClass("org.kivy.android.PythonActivity$PermissionsCallback");
        permissionCallbacks.add(callback);
    }

    public boolean checkCurrentPermission(String permission) {
        return Standin.checkSelfPermission(permission);
    }

    public void requestPermissions(String[] permissions) {
        requestPermissionsWithRequestCode(permissions, 1);
    }

    public void requestPermissionsWithRequestCode(String[] permissions, int requestCode) {
        Standin.requestPermissions(permissions, requestCode);
    }

    // -- used by Standin ------------------------------------------------------------------

    /** Delivered on the UI thread, as Activity.onRequestPermissionsResult is. */
    public void standinPermissionsResult(int requestCode, String[] permissions, int[] grants) {
        runOnUiThread(() -> {
            for (PermissionsCallback c : permissionCallbacks) {
                c.onRequestPermissionsResult(requestCode, permissions, grants);
            }
        });
    }

    /** Delivered at once on the calling thread (AOSP Activity.requestPermissions when a
     *  request is already open calls onRequestPermissionsResult before it returns). */
    public void standinPermissionsResultNow(int requestCode, String[] permissions, int[] grants) {
        for (PermissionsCallback c : permissionCallbacks) {
            c.onRequestPermissionsResult(requestCode, permissions, grants);
        }
    }

    /** Delivered on the UI thread, as Activity.onActivityResult is. */
    public void standinActivityResult(int requestCode, int resultCode) {
        runOnUiThread(() -> {
            for (ActivityResultListener l : resultListeners) {
                l.onActivityResult(requestCode, resultCode, null);
            }
        });
    }

    public static Intent[] standinStarted() {
        return started.toArray(new Intent[0]);
    }

    public static void standinReset() {
        started.clear();
        mActivity.permissionCallbacks.clear();
        mActivity.resultListeners.clear();
        mActivity.window.standinReset();
    }
}

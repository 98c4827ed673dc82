package android.app;

import android.content.Context;
import android.content.Intent;
import android.os.IBinder;

/**
 * Stand-in for android.app.Service (subset). The system side (starting, the foreground
 * rules, stopping) is played by android.app.AppProcess.
 * <pre>
 *   int onStartCommand(Intent, int flags, int startId)      START_STICKY by default
 *   abstract IBinder onBind(Intent)
 *   void onCreate(), onDestroy()
 *   void startForeground(int id, Notification)              FOREGROUND_SERVICE (API 28+)
 *   void startForeground(int id, Notification, int type)    API 29; the type must be in the
 *                                                             manifest's; API 34+: the type's
 *                                                             permissions (AppProcess)
 *   void stopForeground(boolean removeNotification)
 *   void stopSelf()
 * </pre>
 */
public abstract class Service extends Context {
    public static final int START_STICKY = 1;
    public static final int START_NOT_STICKY = 2;

    public void onCreate() {}

    public int onStartCommand(Intent intent, int flags, int startId) {
        return START_STICKY;
    }

    public abstract IBinder onBind(Intent intent);

    public void onDestroy() {}

    public final void startForeground(int id, Notification notification) {
        AppProcess.startForeground(this, id, notification, -1);
    }

    public final void startForeground(int id, Notification notification, int type) {
        if (android.os.Build.VERSION.SDK_INT < 29) {
            throw new NoSuchMethodError("startForeground(int, Notification, int): API 29");
        }
        AppProcess.startForeground(this, id, notification, type);
    }

    public final void stopForeground(boolean removeNotification) {
        AppProcess.stopForeground(this);
    }

    public final void stopSelf() {
        AppProcess.stop(getClass().getName());
    }
}

package org.blu21;

import android.app.Notification;
import android.app.NotificationChannel;
import android.app.NotificationManager;
import android.app.PendingIntent;
import android.app.Service;
import android.content.Context;
import android.content.Intent;
import android.content.pm.ServiceInfo;
import android.os.Build;
import android.os.IBinder;

/**
 * The foreground service that keeps an open table alive while the app is not on screen
 * (issue 33). It runs in the app's own process (declared without android:process in
 * recipes/blu21/service/AndroidManifest.xml, merged by Gradle), which is the process that
 * holds the table's Bluetooth sockets: a process with a foreground service is neither
 * cached nor frozen, so the table's heartbeats go on while the player reads a message or
 * the screen is off. Type connectedDevice (Android 14: FOREGROUND_SERVICE_CONNECTED_DEVICE
 * and a granted Bluetooth permission). Its notification says the table is open and
 * returns to it. It does nothing else: the table itself runs in Python.
 *
 * Started and stopped from Python (app/bluetooth/android_service.py) through pyjnius:
 * start(context, title, text, channelName), stop(context).
 */
public class TableService extends Service {
    static final String CHANNEL_ID = "blu21_table";
    static final int NOTIFICATION_ID = 2121;
    static final String EXTRA_TITLE = "org.blu21.extra.TITLE";
    static final String EXTRA_TEXT = "org.blu21.extra.TEXT";
    static final String EXTRA_CHANNEL = "org.blu21.extra.CHANNEL";
    /** python-for-android's activity (buildozer.spec keeps the default class name). */
    static final String ACTIVITY = "org.kivy.android.PythonActivity";

    /** Start (or update) the service; from any thread. */
    public static void start(Context context, String title, String text, String channelName) {
        Intent intent = new Intent(context, TableService.class);
        intent.putExtra(EXTRA_TITLE, title);
        intent.putExtra(EXTRA_TEXT, text);
        intent.putExtra(EXTRA_CHANNEL, channelName);
        if (Build.VERSION.SDK_INT >= 26) {
            context.startForegroundService(intent);
        } else {
            context.startService(intent);
        }
    }

    /** Stop the service (the table ended); harmless when it does not run. */
    public static void stop(Context context) {
        context.stopService(new Intent(context, TableService.class));
    }

    @Override
    public int onStartCommand(Intent intent, int flags, int startId) {
        String title = intent == null ? null : intent.getStringExtra(EXTRA_TITLE);
        String text = intent == null ? null : intent.getStringExtra(EXTRA_TEXT);
        String channel = intent == null ? null : intent.getStringExtra(EXTRA_CHANNEL);
        Notification notification = notification(
                title == null ? "Blu21" : title, text == null ? "" : text,
                channel == null ? "Blu21" : channel);
        // startForegroundService must be answered by startForeground within seconds.
        if (Build.VERSION.SDK_INT >= 29) {
            startForeground(NOTIFICATION_ID, notification,
                    ServiceInfo.FOREGROUND_SERVICE_TYPE_CONNECTED_DEVICE);
        } else {
            startForeground(NOTIFICATION_ID, notification);
        }
        // Killed with the app: no restart without a table (the table is gone with it).
        return START_NOT_STICKY;
    }

    @Override
    public IBinder onBind(Intent intent) {
        return null;
    }

    private Notification notification(String title, String text, String channelName) {
        // Back to the table: the launcher's intent brings the app's task to the front as
        // it is (no new activity), like tapping the app's icon.
        Intent open = new Intent(Intent.ACTION_MAIN);
        open.addCategory(Intent.CATEGORY_LAUNCHER);
        open.setClassName(getPackageName(), ACTIVITY);
        open.setFlags(Intent.FLAG_ACTIVITY_NEW_TASK | Intent.FLAG_ACTIVITY_RESET_TASK_IF_NEEDED);
        PendingIntent back = PendingIntent.getActivity(this, 0, open,
                PendingIntent.FLAG_IMMUTABLE | PendingIntent.FLAG_UPDATE_CURRENT);
        Notification.Builder builder;
        if (Build.VERSION.SDK_INT >= 26) {
            NotificationChannel channel = new NotificationChannel(
                    CHANNEL_ID, channelName, NotificationManager.IMPORTANCE_LOW);
            NotificationManager manager =
                    (NotificationManager) getSystemService(Context.NOTIFICATION_SERVICE);
            manager.createNotificationChannel(channel);
            builder = new Notification.Builder(this, CHANNEL_ID);
        } else {
            builder = new Notification.Builder(this);
        }
        return builder
                .setSmallIcon(android.R.drawable.stat_sys_data_bluetooth)
                .setContentTitle(title)
                .setContentText(text)
                .setContentIntent(back)
                .setOngoing(true)
                .build();
    }
}

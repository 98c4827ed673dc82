package org.kivy.android;

import android.content.Context;
import android.content.Intent;
import android.view.Window;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Stand-in for python-for-android's org.kivy.android.PythonActivity (subset):
 *   static PythonActivity mActivity       the running activity
 *   void startActivity(Intent intent)     (inherited from android.app.Activity on a phone)
 *   Window getWindow()                    (likewise)
 * The test hooks record the intents started; they are not part of any real API.
 */
public class PythonActivity extends Context {
    public static PythonActivity mActivity = new PythonActivity();

    private static final List<Intent> started = new CopyOnWriteArrayList<>();
    private final Window window = new Window();

    public Window getWindow() {
        return window;
    }

    public void startActivity(Intent intent) {
        started.add(intent);
    }

    public static Intent[] standinStarted() {
        return started.toArray(new Intent[0]);
    }

    public static void standinReset() {
        started.clear();
    }
}

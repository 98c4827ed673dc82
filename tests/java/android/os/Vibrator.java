package android.os;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Stand-in for android.os.Vibrator (subset):
 *   boolean hasVibrator()
 *   void vibrate(long milliseconds)        deprecated in API 26, still works
 *   void vibrate(VibrationEffect effect)   API 26
 * standinVibrations() (test hook) lists what vibrated.
 */
public class Vibrator {
    private static final List<Long> vibrations = new CopyOnWriteArrayList<>();

    public boolean hasVibrator() {
        return true;
    }

    public void vibrate(long milliseconds) {
        vibrations.add(milliseconds);
    }

    public void vibrate(VibrationEffect effect) {
        if (Build.VERSION.SDK_INT < 26) {
            throw new NoSuchMethodError("android.os.Vibrator.vibrate(VibrationEffect)");
        }
        vibrations.add(effect.milliseconds);
    }

    public static Long[] standinVibrations() {
        return vibrations.toArray(new Long[0]);
    }

    public static void standinReset() {
        vibrations.clear();
    }
}

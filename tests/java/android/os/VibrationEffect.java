package android.os;

/**
 * Stand-in for android.os.VibrationEffect (API 26; on older phones the class does not
 * exist, which the stand-in plays by failing on use below API 26):
 *   static final int DEFAULT_AMPLITUDE = -1
 *   static VibrationEffect createOneShot(long milliseconds, int amplitude)
 */
public class VibrationEffect {
    public static final int DEFAULT_AMPLITUDE = -1;
    final long milliseconds;

    private VibrationEffect(long milliseconds) {
        this.milliseconds = milliseconds;
    }

    public static VibrationEffect createOneShot(long milliseconds, int amplitude) {
        if (Build.VERSION.SDK_INT < 26) {
            throw new NoClassDefFoundError("android/os/VibrationEffect");
        }
        return new VibrationEffect(milliseconds);
    }
}

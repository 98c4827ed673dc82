package android.view;

/** Stand-in for android.view.WindowManager (subset): the LayoutParams flag constants. */
public interface WindowManager {
    class LayoutParams {
        public static final int FLAG_KEEP_SCREEN_ON = 0x00000080;
    }
}

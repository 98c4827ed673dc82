package android.view;

/** Stand-in for the one member of android.view.ViewRootImpl apps meet: its exception. */
public final class ViewRootImpl {
    private ViewRootImpl() {}

    public static final class CalledFromWrongThreadException extends RuntimeException {
        public CalledFromWrongThreadException(String message) {
            super(message);
        }
    }
}

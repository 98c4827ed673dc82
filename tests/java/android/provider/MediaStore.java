package android.provider;

import android.net.Uri;

/**
 * Stand-in for android.provider.MediaStore (subset, API 29+): the Downloads collection
 * and the columns of a new row.
 */
public final class MediaStore {
    public static final class Downloads {
        public static final Uri EXTERNAL_CONTENT_URI =
                Uri.parse("content://media/external/downloads");
    }

    public interface MediaColumns {
        String DISPLAY_NAME = "_display_name";
        String MIME_TYPE = "mime_type";
        String RELATIVE_PATH = "relative_path";
    }
}

package android.content;

import android.net.Uri;
import java.io.ByteArrayOutputStream;
import java.io.FileNotFoundException;
import java.io.OutputStream;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Stand-in for android.content.ContentResolver (subset the history's share needs), with
 * MediaStore behind it:
 * <pre>
 *   Uri insert(Uri collection, ContentValues values)   a new row: collection/N (null when
 *                                                        the collection is not MediaStore's
 *                                                        Downloads, as for an unknown table)
 *   OutputStream openOutputStream(Uri uri)             the row's bytes (FileNotFoundException
 *                                                        for a URI never inserted)
 * </pre>
 * The standin* methods are test hooks, not API.
 */
public class ContentResolver {
    private static final Map<String, ByteArrayOutputStream> content = new ConcurrentHashMap<>();
    private static final Map<String, ContentValues> rows = new ConcurrentHashMap<>();
    private static int next = 1;
    private static volatile boolean full;

    public Uri insert(Uri collection, ContentValues values) {
        if (full || !collection.toString().equals("content://media/external/downloads")) {
            return null;
        }
        Uri uri;
        synchronized (ContentResolver.class) {
            uri = Uri.parse(collection + "/" + next++);
        }
        rows.put(uri.toString(), values);
        content.put(uri.toString(), new ByteArrayOutputStream());
        return uri;
    }

    public OutputStream openOutputStream(Uri uri) throws FileNotFoundException {
        ByteArrayOutputStream out = content.get(uri.toString());
        if (out == null) {
            throw new FileNotFoundException("no such row: " + uri);
        }
        out.reset();
        return out;
    }

    public static byte[] standinContent(Uri uri) {
        ByteArrayOutputStream out = content.get(uri.toString());
        return out == null ? null : out.toByteArray();
    }

    public static ContentValues standinValues(Uri uri) {
        return rows.get(uri.toString());
    }

    /** The shared storage refuses new rows (a full disk). */
    public static void standinFull(boolean value) {
        full = value;
    }

    public static void standinReset() {
        content.clear();
        rows.clear();
        full = false;
    }
}

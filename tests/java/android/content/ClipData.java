package android.content;

import android.net.Uri;
import java.util.ArrayList;
import java.util.List;

/**
 * Stand-in for android.content.ClipData (subset): the URIs an Intent grants access to.
 *   static ClipData newRawUri(CharSequence label, Uri uri)
 *   void addItem(ClipData.Item item), int getItemCount(), Item getItemAt(int)
 *   ClipData.Item(Uri uri), Uri Item.getUri()
 */
public class ClipData {
    public static class Item {
        private final Uri uri;

        public Item(Uri uri) {
            this.uri = uri;
        }

        public Uri getUri() {
            return uri;
        }
    }

    private final CharSequence label;
    private final List<Item> items = new ArrayList<>();

    private ClipData(CharSequence label, Item first) {
        this.label = label;
        items.add(first);
    }

    public static ClipData newRawUri(CharSequence label, Uri uri) {
        return new ClipData(label, new Item(uri));
    }

    public void addItem(Item item) {
        items.add(item);
    }

    public int getItemCount() {
        return items.size();
    }

    public Item getItemAt(int index) {
        return items.get(index);
    }
}

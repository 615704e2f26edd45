package dev.waybill.outbox.autoconfigure;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;

/**
 * Finds the known property closest to an unknown one: the fewest edits, counted over the name's
 * elements so that a missing or misspelt element costs less than an unrelated one.
 *
 * @since 0.1
 */
final class NearestPropertyName {

	private final Collection<KnownName> known;

	private final Collection<ConfigurationPropertyName> keyedMaps;

	/**
	 * Creates the search.
	 * @param known the names Waybill binds
	 * @param keyedMaps maps from a key to a group of properties ({@code waybill.schedules})
	 */
	NearestPropertyName(Collection<KnownName> known, Collection<ConfigurationPropertyName> keyedMaps) {
		this.known = known;
		this.keyedMaps = keyedMaps;
	}

	/**
	 * Returns the known property closest to an unknown name.
	 * @param unknown the unknown name
	 * @return the closest known name, {@code null} when none is close
	 */
	@Nullable String closest(ConfigurationPropertyName unknown) {
		String dotted = dottedKey(unknown);
		if (dotted != null) {
			return dotted;
		}
		List<String> target = elements(unknown, 0);
		String joined = String.join("", target);
		String best = null;
		// Beyond this the nearest name is a guess, not a correction.
		int bestCost = Math.max(3, (joined.length() - WaybillMetadata.ROOT.toString().length()) / 2) + 1;
		for (KnownName known : this.known) {
			ConfigurationPropertyName name = known.name();
			List<String> candidate = elements(name, 0);
			String display = name.toString();
			if (known.container() && unknown.getNumberOfElements() > name.getNumberOfElements()) {
				// A map or collection: compare with the unknown key's own tail below it.
				int tail = name.getNumberOfElements();
				candidate.addAll(elements(unknown, tail));
				display = name + "." + unknown.subName(tail);
			}
			// Also letter by letter over the whole name: an element split or joined by mistake (an
			// environment variable's _ for a -) costs its letters, not whole elements.
			int cost = Math.min(distance(target, candidate), distance(joined, String.join("", candidate)));
			if (cost < bestCost) {
				bestCost = cost;
				best = display;
			}
		}
		return best;
	}

	/**
	 * A key with dots written without brackets ({@code waybill.schedules.reports.eu.cron}): the
	 * binder reads {@code reports} as the key, but the elements after it name a property of an
	 * entry once some of them are taken as the key; returns the bracketed form
	 * ({@code waybill.schedules[reports.eu].cron}), or {@code null}.
	 */
	private @Nullable String dottedKey(ConfigurationPropertyName unknown) {
		for (ConfigurationPropertyName map : this.keyedMaps) {
			int key = map.getNumberOfElements();
			if (!map.isAncestorOf(unknown) || unknown.getNumberOfElements() < key + 3) {
				continue;
			}
			ConfigurationPropertyName entry = unknown.chop(key + 1);
			if (isKnown(entry.append(unknown.getElement(key + 1, Form.DASHED)))) {
				continue; // the element after the key is an entry's own: a misspelling below it
			}
			for (int end = key + 2; end < unknown.getNumberOfElements(); end++) {
				ConfigurationPropertyName rest = unknown.subName(end);
				if (isKnown(entry.append(rest))) {
					List<String> keyElements = new ArrayList<>();
					for (int i = key; i < end; i++) {
						keyElements.add(unknown.getElement(i, Form.ORIGINAL));
					}
					return map + "[" + String.join(".", keyElements) + "]." + rest;
				}
			}
		}
		return null;
	}

	private boolean isKnown(ConfigurationPropertyName name) {
		return this.known.stream().anyMatch((known) -> known.name().equals(name));
	}

	private static List<String> elements(ConfigurationPropertyName name, int from) {
		List<String> elements = new ArrayList<>();
		for (int i = from; i < name.getNumberOfElements(); i++) {
			elements.add(name.getElement(i, Form.UNIFORM));
		}
		return elements;
	}

	/** Edit distance over elements: an element costs 3 to add or drop, its letters' distance to change. */
	private static int distance(List<String> a, List<String> b) {
		int[][] d = new int[a.size() + 1][b.size() + 1];
		for (int i = 0; i <= a.size(); i++) {
			d[i][0] = 3 * i;
		}
		for (int j = 0; j <= b.size(); j++) {
			d[0][j] = 3 * j;
		}
		for (int i = 1; i <= a.size(); i++) {
			for (int j = 1; j <= b.size(); j++) {
				d[i][j] = Math.min(Math.min(d[i - 1][j] + 3, d[i][j - 1] + 3),
						d[i - 1][j - 1] + distance(a.get(i - 1), b.get(j - 1)));
			}
		}
		return d[a.size()][b.size()];
	}

	private static int distance(String a, String b) {
		int[] previous = new int[b.length() + 1];
		int[] current = new int[b.length() + 1];
		for (int j = 0; j <= b.length(); j++) {
			previous[j] = j;
		}
		for (int i = 1; i <= a.length(); i++) {
			current[0] = i;
			for (int j = 1; j <= b.length(); j++) {
				int change = (a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1;
				current[j] = Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + change);
			}
			int[] swap = previous;
			previous = current;
			current = swap;
		}
		return previous[b.length()];
	}

}

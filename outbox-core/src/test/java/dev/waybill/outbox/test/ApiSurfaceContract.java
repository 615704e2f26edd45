package dev.waybill.outbox.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;

import org.junit.jupiter.api.Test;

/**
 * The two checks every module's {@code ApiSurfaceTests} makes: each public type outside the
 * internal packages is on the module's reviewed API list, and no API signature mentions an
 * internal type unless it is a reviewed exception. A module's test extends this and names its
 * lists; failures name the list to change.
 */
public abstract class ApiSurfaceContract {

	/**
	 * Returns a class of the module under test, which locates its compiled classes.
	 * @return any main class of the module
	 */
	protected abstract Class<?> moduleAnchor();

	/**
	 * Returns every public type outside the internal packages, each there because a user needs it.
	 * @return the reviewed API type names
	 */
	protected abstract Set<String> api();

	/**
	 * Returns the API members that still mention an internal type, each reviewed.
	 * @return the reviewed exceptions, as {@link ApiSurface#internalTypesExposed} names them
	 */
	protected Set<String> exposed() {
		return Set.of();
	}

	@Test
	public void everyPublicTypeOutsideInternalPackagesIsReviewedApi() {
		assertThat(ApiSurface.ofModuleOf(moduleAnchor()).unreviewedApiTypes(api(), getClass().getName() + ".API"))
			.isEmpty();
	}

	@Test
	public void apiSignaturesDoNotMentionInternalTypes() {
		assertThat(ApiSurface.ofModuleOf(moduleAnchor())
			.internalTypesExposed(exposed(), getClass().getName() + ".EXPOSED")).isEmpty();
	}

}

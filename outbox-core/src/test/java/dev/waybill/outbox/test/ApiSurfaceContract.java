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

	private final Class<?> moduleAnchor;

	private final Set<String> api;

	private final Set<String> exposed;

	/**
	 * Names the module and its reviewed lists.
	 * @param moduleAnchor any main class of the module, which locates its compiled classes
	 * @param api every public type outside the internal packages, each there because a user needs it
	 * @param exposed the API members that still mention an internal type, each reviewed, as
	 * {@link ApiSurface#internalTypesExposed} names them
	 */
	protected ApiSurfaceContract(Class<?> moduleAnchor, Set<String> api, Set<String> exposed) {
		this.moduleAnchor = moduleAnchor;
		this.api = api;
		this.exposed = exposed;
	}

	@Test
	public void everyPublicTypeOutsideInternalPackagesIsReviewedApi() {
		assertThat(ApiSurface.ofModuleOf(this.moduleAnchor).unreviewedApiTypes(this.api, getClass().getName() + ".API"))
			.isEmpty();
	}

	@Test
	public void apiSignaturesDoNotMentionInternalTypes() {
		assertThat(ApiSurface.ofModuleOf(this.moduleAnchor)
			.internalTypesExposed(this.exposed, getClass().getName() + ".EXPOSED")).isEmpty();
	}

}

import os

from django.core.wsgi import get_wsgi_application

from ginsite.localfiles import prepare

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ginsite.settings")
prepare()
application = get_wsgi_application()
